"""Every email kind in every language, rendered from the shipped templates against the sample
order and compared with the committed snapshot files (tests/unit/email_snapshots/); a change
of wording shows up as a diff to review. Rewrite them with UPDATE_EMAIL_SNAPSHOTS=1.

Beyond the snapshot: the HTML parses without errors, no template syntax is left in any
part, every link and image is absolute, and the parts are what a mail client needs."""

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import html5lib  # type: ignore[import-untyped]  # no stubs installed (types-html5lib is not a dependency)
import pytest
from django.conf import settings

from notifications.content.context import email_context, order_number, sample_order
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import TemplateSource, shipped_source
from notifications.models import Notification

SNAPSHOTS = Path(__file__).parent / "email_snapshots"
PLACED_AT = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
KINDS = [kind.value for kind in Notification.Kind]
LOCALES = [code for code, _ in settings.LANGUAGES]
CASES = [(kind, locale) for kind in KINDS for locale in LOCALES]
TEMPLATE_SYNTAX = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")
URL_ATTRIBUTES = re.compile(r'\b(href|src)="([^"]*)"')


def _render(kind: str, locale: str) -> RenderedEmail:
    order = sample_order(locale, placed_at=PLACED_AT)
    return email_render(shipped_source(kind, locale), email_context(order, locale))


@pytest.mark.parametrize(("kind", "locale"), CASES)
def test_the_email_matches_its_committed_snapshot(kind, locale):
    email = _render(kind, locale)
    parts = {"subject.txt": email.subject + "\n", "txt": email.text, "html": email.html}
    for suffix, rendered in parts.items():
        path = SNAPSHOTS / f"{kind}.{locale}.{suffix}"
        if os.environ.get("UPDATE_EMAIL_SNAPSHOTS") == "1":
            path.write_text(rendered, encoding="utf-8")
        assert path.is_file(), f"{path} is missing: run with UPDATE_EMAIL_SNAPSHOTS=1 and review it"
        assert rendered == path.read_text(encoding="utf-8"), f"{path.name} changed: review, then update"


@pytest.mark.parametrize(("kind", "locale"), CASES)
def test_the_html_parses_strictly_and_declares_its_language(kind, locale):
    email = _render(kind, locale)
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    document = parser.parse(email.html)  # raises on any parse error
    assert document.get("lang") == locale
    assert document.find("head/title").text == email.subject
    images = document.findall(".//img")
    assert images, "the layout shows the shop's logo"
    assert all(image.get("alt") for image in images), "every image has an alt text"
    [preheader] = [div for div in document.iter("div") if "preheader" in (div.get("class") or "")]
    assert (preheader.text or "").strip(), "the preheader is what inboxes show after the subject"
    assert "display: none" in preheader.get("style", ""), "CSS is inlined"
    assert "<style" not in email.html, "no style block is left for clients that strip it"


@pytest.mark.parametrize(("kind", "locale"), CASES)
def test_no_template_syntax_is_left_and_every_url_is_absolute(kind, locale):
    email = _render(kind, locale)
    for part in (email.subject, email.text, email.html):
        assert not TEMPLATE_SYNTAX.search(part), part
    urls = [url for _, url in URL_ATTRIBUTES.findall(email.html)]
    assert urls, "the layout links the shop and shows its logo"
    for url in urls:
        assert url.startswith(("https://", "mailto:")), f"{url!r} is not absolute"


@pytest.mark.parametrize(("kind", "locale"), CASES)
def test_the_text_part_reads_on_its_own(kind, locale):
    email = _render(kind, locale)
    assert order_number(sample_order(locale)) in email.text
    assert settings.SHOP_SUPPORT_EMAIL in email.text
    assert "<" not in email.text, "no markup in the text part"
    assert email.text.endswith("\n")
    assert "\n\n\n" not in email.text


@pytest.mark.parametrize(
    ("locale", "amount", "day"),
    [("en", "€49.90", "March 14, 2026"), ("ru", "49,90\xa0€", "14 марта 2026\u202fг.")],  # noqa: RUF001
)
def test_amounts_and_dates_are_written_the_customers_way(locale, amount, day):
    email = _render("order_confirmation", locale)
    assert amount in email.text
    assert day in email.text


def test_russian_emails_are_in_russian():
    for kind in KINDS:
        email = _render(kind, "ru")
        assert re.search("[а-яё]", email.subject, re.IGNORECASE), email.subject  # noqa: RUF001
        assert "Order number" not in email.text


def test_a_linked_stylesheet_is_dropped_never_fetched():
    # An override could link a remote stylesheet; the worker must not call out while it holds
    # the order's lock. Port 9 (discard) on loopback: a fetch would fail and raise.
    shipped = shipped_source("order_confirmation", "en")
    linked = shipped.html.replace(
        "{% block content %}", '{% block content %}<link rel="stylesheet" href="http://127.0.0.1:9/x.css">', 1
    )
    source = TemplateSource(
        kind=shipped.kind, locale="en", subject=shipped.subject, text=shipped.text, html=linked
    )
    email = email_render(source, email_context(sample_order("en", placed_at=PLACED_AT), "en"))
    assert "127.0.0.1:9" not in email.html
    assert "<link" not in email.html
