"""What the admin shows of an email before it is sent: a version's wording rendered against
the sample order or a real one, a pending notification as today's live templates would
render it, and the text a new version starts from. Nothing here is stored."""

import uuid
from dataclasses import dataclass

from notifications.content.about import SUBJECT_KINDS, email_kind_words, notification_about
from notifications.content.context import email_context, sample_context
from notifications.content.errors import RenderError
from notifications.content.render import RenderedEmail, email_render
from notifications.content.snapshot import email_locale_of, email_render_for_order
from notifications.content.sources import live_source, live_version, version_source
from notifications.models import EmailTemplateVersion, Notification
from orders.models import Order
from orders.selectors import order_content


class PreviewOrderMissing(Exception):
    pass


@dataclass(frozen=True)
class Preview:
    """A rendered email, or the reason it does not render (then `email` is None), and the
    version it was rendered from (None: the shipped template)."""

    email: RenderedEmail | None
    error: str = ""
    version: EmailTemplateVersion | None = None


def draft_start(kind: str, locale: str) -> dict[str, str]:
    """The wording a new version starts from: the live version's, else the shipped files'."""
    source = live_source(kind, locale)
    return {"subject": source.subject, "text": source.text, "html": source.html}


def draft_start_label(kind: str, locale: str) -> str:
    version = live_version(kind, locale)
    return f"live version {version.number}" if version is not None else "the shipped template"


def preview_order(order_id: str) -> Order:
    """The order a preview renders against; raises PreviewOrderMissing in plain words."""
    try:
        key = uuid.UUID(order_id.strip())
    except ValueError:
        raise PreviewOrderMissing(f"{order_id!r} is not an order id (a UUID).") from None
    order = Order.objects.filter(pk=key).first()
    if order is None:
        raise PreviewOrderMissing(f"There is no order {key}.")
    return order


def version_preview(version: EmailTemplateVersion, order: Order | None = None) -> Preview:
    """The version's wording in its own language, with the values of `order` (default: the
    sample order)."""
    if order is None:
        context = sample_context(version.kind, version.locale)
    else:
        # An email about a shipment (a refund) shows the order's latest one.
        email = Notification.objects.filter(order=order, kind=version.kind).order_by("-created_at").first()
        about = notification_about(email) if email is not None else None
        if version.kind in SUBJECT_KINDS and about is None:
            return Preview(
                None, f"Order {order.pk} has no {email_kind_words(version.kind)} to show.", version
            )
        context = email_context(order, version.locale, order_content(order), kind=version.kind, about=about)
    try:
        rendered = email_render(version_source(version), context)
    except RenderError as exc:
        return Preview(None, str(exc), version)
    return Preview(rendered, version=version)


def notification_preview_now(notification: Notification) -> Preview:
    """A notification not rendered yet, as today's live templates would render it."""
    version = live_version(notification.kind, email_locale_of(notification.order))
    try:
        rendered, _ = email_render_for_order(
            kind=notification.kind,
            order=notification.order,
            version=version,
            content=order_content(notification.order, notification.content_version),
            about=notification_about(notification),
        )
    except RenderError as exc:
        return Preview(None, str(exc), version)
    return Preview(rendered, version=version)
