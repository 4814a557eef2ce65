"""The email stored with its notification at the first attempt, and the outbound email every
attempt builds from it. Rendering once is what keeps a retry, a replay or a review resend
byte-identical to the first attempt whatever was deployed or published in between: the
provider compares the body it saw under a key with the one it gets again, and refuses (or
replays stale content for) a drift."""

from datetime import datetime
from typing import Any

from django.conf import settings

from notifications.content.brand import sender_of_shop
from notifications.content.context import email_context
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import TemplateSource, shipped_source, version_source
from notifications.documents.attached import (
    attachments_deleted_check,
    attachments_hash,
    attachments_of,
    attachments_take,
)
from notifications.models import EmailTemplateVersion, Notification
from notifications.providers.base import OutboundEmail
from orders.models import Order
from orders.selectors import order_content, order_shop

SNAPSHOT_FIELDS = [
    "email_locale",
    "email_from",
    "email_subject",
    "email_text",
    "email_html",
    "email_content_hash",
    "email_rendered_at",
    "email_template_id",
    "email_attachments",
]


class _Current:
    """The order's current content, read when the email is rendered."""


CURRENT_CONTENT = _Current()


def email_locale_of(order: Order) -> str:
    """The order's language if the site still offers it, else the site's language."""
    offered = {code for code, _ in settings.LANGUAGES}
    return order.locale if order.locale in offered else settings.LANGUAGE_CODE


def email_source(kind: str, locale: str, version: EmailTemplateVersion | None) -> TemplateSource:
    return version_source(version) if version is not None else shipped_source(kind, locale)


def email_render_for_order(
    *,
    kind: str,
    order: Order,
    version: EmailTemplateVersion | None,
    content: dict[str, Any] | _Current | None = CURRENT_CONTENT,
    about: dict[str, Any] | None = None,
    shop: dict[str, Any] | _Current | None = CURRENT_CONTENT,
) -> tuple[RenderedEmail, str]:
    """Render without storing (previews, the naive bench pipeline). `content`: what was
    bought in the version the email shows; by default the order's current one, read here.
    `about`: what the email is about beyond the order (content/about.py). `shop`: the order's
    connected shop's fields; by default read here. Raises RenderError."""
    if isinstance(content, _Current):
        content = order_content(order)
    if isinstance(shop, _Current):
        shop = order_shop(order)
    locale = email_locale_of(order)
    source = email_source(kind, locale, version)
    context = email_context(order, locale, content, kind=kind, about=about, shop=shop)
    return email_render(source, context), locale


def snapshot_take(
    notification: Notification,
    order: Order,
    *,
    content: dict[str, Any] | None,
    version: EmailTemplateVersion | None,
    now: datetime,
    about: dict[str, Any] | None = None,
    shop: dict[str, Any] | None = None,
) -> list[str]:
    """Render and set the snapshot fields (the caller saves them with its own update); return
    their attribute names. `content` is the version the notification's event saw
    (Notification.content_version); `shop`, the order's connected shop's fields (its brand and
    sender), None for an order of no shop. Raises RenderError and then sets nothing; raises
    AttachmentDeleted when the email is rendered afresh (its snapshot cleared) but a document
    its earlier snapshot named was deleted since: it is not sent without it."""
    attachments_deleted_check(notification.email_attachments or [])
    rendered, locale = email_render_for_order(
        kind=notification.kind, order=order, version=version, content=content, about=about, shop=shop
    )
    notification.email_locale = locale
    notification.email_from = sender_of_shop(shop)
    notification.email_subject = rendered.subject
    notification.email_text = rendered.text
    notification.email_html = rendered.html
    notification.email_attachments = attachments_take(notification, order)
    notification.email_content_hash = attachments_hash(rendered.content_hash, notification.email_attachments)
    notification.email_rendered_at = now
    notification.email_template = version
    return SNAPSHOT_FIELDS


def snapshot_exists(notification: Notification) -> bool:
    return bool(notification.email_content_hash)


def snapshot_outbound(notification: Notification, *, to: str, event_id: str) -> OutboundEmail:
    if not snapshot_exists(notification):
        raise ValueError(f"notification {notification.pk} has no rendered email yet")
    return OutboundEmail(
        idempotency_key=notification.idempotency_key,
        to=to,
        subject=notification.email_subject,
        text=notification.email_text,
        html=notification.email_html,
        event_id=event_id,
        # Rendered before the sender was part of the snapshot: the setting, as it was sent then.
        from_address=notification.email_from or settings.MAIL_FROM_ADDRESS,
        attachments=attachments_of(notification),
    )
