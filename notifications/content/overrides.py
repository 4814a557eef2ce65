"""Wording changed in the admin without a deploy. A draft is a new version, refused unless it
renders against a sample order; publishing makes it the live version for its kind and
language (the previous one is retired in the same transaction); retiring the live version
goes back to the shipped templates. Who did what and when stays on the versions, which are
never edited or deleted. Emails already rendered keep their bytes (snapshot.py).

The invoices' and credit notes' PDF template is versioned the same way, as one more kind
(sources.DOCUMENT_KIND); documents already rendered keep their bytes (documents/pdf.py)."""

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from notifications.content.context import sample_context, sample_short_context
from notifications.content.errors import RenderError
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import DOCUMENT_KIND, TemplateSource, version_source
from notifications.documents.template_check import document_samples_render
from notifications.models import EmailTemplateVersion


class OverrideRefused(Exception):
    pass


def override_check(*, kind: str, locale: str, subject: str, text: str, html: str) -> None:
    """Render the text against the samples; raises RenderError saying what is wrong."""
    source_check(TemplateSource(kind=kind, locale=locale, subject=subject, text=text, html=html, draft=True))


def source_check(source: TemplateSource) -> None:
    """An email's wording against the sample orders; the invoice template (of its HTML alone)
    against the sample invoice and credit note, laid out as PDFs (documents/template_check.py)."""
    if source.kind == DOCUMENT_KIND:
        document_samples_render(source)
    else:
        sample_renders(source)


@transaction.atomic
def override_draft_create(
    *,
    kind: str,
    locale: str,
    subject: str,
    text: str,
    html: str,
    comment: str,
    author: User | None,
    author_name: str,
) -> EmailTemplateVersion:
    override_check(kind=kind, locale=locale, subject=subject, text=text, html=html)
    # The lock on the kind's versions makes two concurrent drafts take different numbers.
    latest = (
        EmailTemplateVersion.objects.select_for_update()
        .filter(kind=kind, locale=locale)
        .aggregate(number=Max("number"))["number"]
    )
    return EmailTemplateVersion.objects.create(
        kind=kind,
        locale=locale,
        number=(latest or 0) + 1,
        subject=subject,
        text=text,
        html=html,
        comment=comment,
        created_by=author,
        created_by_name=author_name,
    )


@transaction.atomic
def override_publish(version_id: int, *, by_name: str) -> EmailTemplateVersion:
    version = EmailTemplateVersion.objects.select_for_update().get(pk=version_id)
    if version.state != "draft":
        raise OverrideRefused(f"Version {version.number} is {version.state}; only a draft can be published.")
    try:  # rendered again: a shipped base layout it extends may have changed since the draft
        source_check(version_source(version))
    except RenderError as exc:
        raise OverrideRefused(str(exc)) from exc
    now = timezone.now()
    _retire_live(version.kind, version.locale, by_name=by_name, now=now)
    version.published_at = now
    version.published_by_name = by_name
    version.save(update_fields=["published_at", "published_by_name"])
    return version


@transaction.atomic
def override_retire(*, kind: str, locale: str, by_name: str) -> EmailTemplateVersion | None:
    """Back to the shipped templates for this kind and language; returns what was retired."""
    return _retire_live(kind, locale, by_name=by_name, now=timezone.now())


def _retire_live(kind: str, locale: str, *, by_name: str, now: datetime) -> EmailTemplateVersion | None:
    live = (
        EmailTemplateVersion.objects.select_for_update()
        .filter(kind=kind, locale=locale, published_at__isnull=False, retired_at__isnull=True)
        .first()
    )
    if live is not None:
        live.retired_at = now
        live.retired_by_name = by_name
        live.save(update_fields=["retired_at", "retired_by_name"])
    return live


def sample_renders(source: TemplateSource) -> RenderedEmail:
    """The wording rendered for an order placed with the short body, then for the sample shop
    order, whose rendering it returns: an email must render for both kinds of order, or it
    would fail at its first attempt for the kind its author did not preview."""
    email_render(source, sample_short_context(source.kind, source.locale))
    return email_render(source, sample_context(source.kind, source.locale))
