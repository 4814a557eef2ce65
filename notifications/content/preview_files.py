"""An email as a person checks it before customers get it: the sample order or a real order's
email, in a language, written to files a browser and an editor open (`manage.py
email_preview`). Every way it can go wrong is a PreviewRefused in plain words."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from notifications.content.about import notification_about
from notifications.content.context import email_context, sample_context
from notifications.content.errors import RenderError
from notifications.content.preview import PreviewOrderMissing, preview_order
from notifications.content.render import email_render
from notifications.content.snapshot import email_locale_of, snapshot_exists
from notifications.content.sources import live_source
from notifications.models import Notification
from orders.models import Order
from orders.selectors import order_content


class PreviewRefused(Exception):
    """The preview cannot be made as asked; the message says why and what would work."""


@dataclass(frozen=True)
class EmailPreview:
    kind: str
    locale: str
    subject: str
    text: str
    html: str
    origin: str  # where the bytes come from, in words


@dataclass(frozen=True)
class PreviewFiles:
    html: Path
    text: Path


def email_kinds() -> list[str]:
    return list(Notification.Kind.values)


def email_languages() -> list[str]:
    return [code for code, _ in settings.LANGUAGES]


def email_kind_check(kind: str) -> None:
    if kind not in email_kinds():
        raise PreviewRefused(f"There is no email kind {kind!r}; the kinds are {', '.join(email_kinds())}.")


def email_language_check(locale: str) -> None:
    if locale not in email_languages():
        raise PreviewRefused(
            f"The emails are not written in {locale!r}; the languages are {', '.join(email_languages())}."
        )


def preview_of_sample(kind: str, locale: str | None) -> EmailPreview:
    """The sample order's email, rendered with today's live templates."""
    locale = locale or settings.LANGUAGE_CODE
    email_kind_check(kind)
    email_language_check(locale)
    return _live(kind, sample_context(kind, locale), locale, about="the sample order")


def preview_of_order(kind: str, order_id: str, locale: str | None) -> EmailPreview:
    """The order's email: the stored snapshot if it has one in that language (what the
    customer got, or will get on any later attempt), else rendered with today's templates."""
    email_kind_check(kind)
    if locale is not None:
        email_language_check(locale)
    order = _order(order_id)
    notification = Notification.objects.filter(order=order, kind=kind).first()
    if notification is None:
        raise PreviewRefused(f"Order {order.id} has no {kind} email.")
    about = f"order {order.id}"
    if snapshot_exists(notification):
        stored = notification.email_locale
        if locale in (None, stored):
            return EmailPreview(
                kind=kind,
                locale=stored,
                subject=notification.email_subject,
                text=notification.email_text,
                html=notification.email_html,
                origin=f"the email stored for {about}{_when(notification)}: the bytes every attempt sends",
            )
        about += f" (its stored email is in {stored}, not what is sent)"
    locale = locale or email_locale_of(order)
    content = order_content(order, notification.content_version)
    context = email_context(order, locale, content, kind=kind, about=notification_about(notification))
    return _live(kind, context, locale, about=about)


def preview_write(preview: EmailPreview, out_dir: Path) -> PreviewFiles:
    """`<kind>.<locale>.html`, and `<kind>.<locale>.txt` with a "Subject:" line first."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{preview.kind}.{preview.locale}"
    files = PreviewFiles(html=out_dir / f"{stem}.html", text=out_dir / f"{stem}.txt")
    files.html.write_text(preview.html, encoding="utf-8")
    files.text.write_text(f"Subject: {preview.subject}\n\n{preview.text}", encoding="utf-8")
    return files


def _live(kind: str, context: dict[str, Any], locale: str, *, about: str) -> EmailPreview:
    try:
        source = live_source(kind, locale)
        rendered = email_render(source, context)
    except RenderError as exc:
        raise PreviewRefused(str(exc)) from exc
    return EmailPreview(
        kind=kind,
        locale=locale,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        origin=f"{about}, rendered now with {source.label}",
    )


def _when(notification: Notification) -> str:
    rendered_at = notification.email_rendered_at
    return f" at its first attempt ({rendered_at:%Y-%m-%d %H:%M %Z})" if rendered_at else ""


def _order(order_id: str) -> Order:
    try:
        return preview_order(order_id)
    except PreviewOrderMissing as exc:
        raise PreviewRefused(str(exc)) from None
