"""Every email kind in every language, rendered from the shipped templates against the sample
shop order and the sample short-body order, and compared with the committed snapshot files
(tests/unit/email_snapshots/); a change of wording shows up as a diff to review. Rewrite them
with UPDATE_EMAIL_SNAPSHOTS=1.

Beyond the snapshot: the HTML parses without errors, no template syntax is left in any
part, every link and image is absolute, and the parts are what a mail client needs."""

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import html5lib  # type: ignore[import-untyped]  # no stubs installed (types-html5lib is not a dependency)
import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from notifications.content.context import (
    SAMPLE_CONTENT,
    sample_context,
    sample_short_context,
)
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import TemplateSource, shipped_source
from notifications.models import Notification

SNAPSHOTS = Path(__file__).parent / "email_snapshots"
PLACED_AT = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
KINDS = [kind.value for kind in Notification.Kind]
LOCALES = [code for code, _ in settings.LANGUAGES]
FORMS = {"shop": sample_context, "short": sample_short_context}
CASES = [(kind, locale) for kind in KINDS for locale in LOCALES]
FORM_CASES = [(kind, locale, form) for kind, locale in CASES for form in FORMS]
TEMPLATE_SYNTAX = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")
URL_ATTRIBUTES = re.compile(r'\b(href|src)="([^"]*)"')


def _render(kind: str, locale: str, form: str = "shop") -> RenderedEmail:
    return email_render(shipped_source(kind, locale), FORMS[form](kind, locale, placed_at=PLACED_AT))


@pytest.mark.parametrize(("kind", "locale", "form"), FORM_CASES)
def test_the_email_matches_its_committed_snapshot(kind, locale, form):
    email = _render(kind, locale, form)
    parts = {"subject.txt": email.subject + "\n", "txt": email.text, "html": email.html}
    stem = f"{kind}.{locale}" if form == "shop" else f"{kind}.{locale}.{form}"
    for suffix, rendered in parts.items():
        path = SNAPSHOTS / f"{stem}.{suffix}"
        if os.environ.get("UPDATE_EMAIL_SNAPSHOTS") == "1":
            path.write_text(rendered, encoding="utf-8")
        assert path.is_file(), f"{path} is missing: run with UPDATE_EMAIL_SNAPSHOTS=1 and review it"
        assert rendered == path.read_text(encoding="utf-8"), f"{path.name} changed: review, then update"


@pytest.mark.parametrize(("kind", "locale", "form"), FORM_CASES)
def test_the_html_parses_strictly_and_declares_its_language(kind, locale, form):
    email = _render(kind, locale, form)
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


@pytest.mark.parametrize(("kind", "locale", "form"), FORM_CASES)
def test_no_template_syntax_is_left_and_every_url_is_absolute(kind, locale, form):
    email = _render(kind, locale, form)
    for part in (email.subject, email.text, email.html):
        assert not TEMPLATE_SYNTAX.search(part), part
    urls = [url for _, url in URL_ATTRIBUTES.findall(email.html)]
    assert urls, "the layout links the shop and shows its logo"
    for url in urls:
        assert url.startswith(("https://", "mailto:")), f"{url!r} is not absolute"


@pytest.mark.parametrize(("kind", "locale", "form"), FORM_CASES)
def test_the_text_part_reads_on_its_own(kind, locale, form):
    email = _render(kind, locale, form)
    assert (SAMPLE_CONTENT["number"] if form == "shop" else "1F3A9C2B") in email.text
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


def _visible_text(html: str) -> str:
    document = html5lib.parse(html, namespaceHTMLElements=False)
    # Runs of ASCII whitespace only: the no-break spaces of "49,90\xa0€" are part of the value.
    return re.sub(r"[ \t\r\n]+", " ", "".join(document.find("body").itertext()))


@pytest.mark.parametrize("locale", LOCALES)
def test_the_confirmation_shows_what_was_bought_in_both_parts(locale):
    email = _render("order_confirmation", locale)
    order = sample_context("order_confirmation", locale, placed_at=PLACED_AT)["order"]

    expected = [
        *(
            line[key]
            for line in order["lines"]
            for key in ("name", "sku", "quantity", "unit_price", "total", "tax_rate")
        ),
        *order["shipping_address"],
        order["shipping_method"],
        order["shipping_price"],
        order["subtotal"],
        order["tax_total"],
        order["amount"],
        order["customer_name"],
        *(discount[key] for discount in order["discounts"] for key in ("label", "amount")),
    ]
    assert len(expected) == 2 * 6 + 4 + 6 + 2, expected  # every part of the sample is asked for
    assert all(expected), expected
    for part_name, part in (("text", email.text), ("html", _visible_text(email.html))):
        missing = [value for value in expected if value not in part]
        assert not missing, f"the {part_name} part of the {locale} confirmation lacks {missing}"


# What an EU order confirmation must carry (Directive 2011/83/EU, art. 6(1), 8(7)), as the
# sample order's confirmation shows it: the element, and the words that carry it.
def _legal_elements(locale: str) -> dict[str, list[str]]:
    context = sample_context("order_confirmation", locale, placed_at=PLACED_AT)
    shop, order = context["shop"], context["order"]
    withdrawal = {"en": "within 14 days without giving any reason", "ru": "в течение 14 дней без"}
    return {
        "the trader's identity": [shop["legal_name"], shop["register"]],
        "its geographic address and telephone": [shop["legal_address"], shop["phone"], shop["support_email"]],
        "the main characteristics of the goods": [line["name"] for line in order["lines"]],
        "the total price with taxes": [order["amount"], order["tax_total"]],
        "the delivery costs": [order["shipping_price"]],
        "payment and delivery arrangements": [
            order["payment_method"],
            order["shipping_method"],
            shop["terms_url"],
        ],
        "the right of withdrawal with its conditions": [withdrawal[locale], shop["withdrawal_url"]],
        "the model withdrawal form (a link)": [shop["withdrawal_url"]],
        "the terms and conditions": [shop["terms_url"]],
    }


@pytest.mark.parametrize("locale", LOCALES)
def test_the_confirmation_carries_what_an_eu_confirmation_must_in_both_parts(locale):
    email = _render("order_confirmation", locale)
    html_text = _visible_text(email.html)
    links = [url for _, url in URL_ATTRIBUTES.findall(email.html)]
    for element, words in _legal_elements(locale).items():
        assert all(words), (element, words)
        for part_name, part in (("text", email.text), ("html", html_text + " " + " ".join(links))):
            missing = [word for word in words if word not in part]
            assert not missing, (
                f"{element}: the {part_name} part of the {locale} confirmation lacks {missing}"
            )


@pytest.mark.parametrize("locale", LOCALES)
def test_an_order_placed_with_the_short_body_is_confirmed_with_the_legal_elements_too(locale):
    email = _render("order_confirmation", locale, "short")
    shop = sample_context("order_confirmation", locale)["shop"]
    for value in (shop["legal_name"], shop["legal_address"], shop["withdrawal_url"], shop["terms_url"]):
        assert value in email.text
        assert value in email.html


def test_an_order_placed_with_the_short_body_shows_its_amount_and_no_lines():
    email = _render("order_confirmation", "en", "short")
    assert "Amount: €49.90" in email.text
    assert "What you ordered" not in email.text
    assert "What you ordered" not in email.html


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
    email = email_render(source, sample_context("order_confirmation", "en", placed_at=PLACED_AT))
    assert "127.0.0.1:9" not in email.html
    assert "<link" not in email.html


@pytest.mark.parametrize("locale", LOCALES)
def test_a_parcel_that_names_no_carrier_says_only_that_it_left(locale):
    # given: a Saleor fulfilment, or a Shopify local delivery: a tracking number, no carrier
    context = sample_context("order_shipment", locale, placed_at=PLACED_AT)
    context["shipment"] = context["shipment"] | {"carrier": "", "tracking_url": ""}
    # when
    email = email_render(shipped_source("order_shipment", locale), context)
    # then
    with translation.override(locale):
        left = gettext("A parcel of your order has left us.")
        preheader = gettext("Order %(number)s is on its way.") % {"number": context["order"]["number"]}
    for part in (email.text, _visible_text(email.html)):
        assert left in part
        assert context["shipment"]["tracking_number"] in part
    assert preheader in email.html
    assert " ." not in _visible_text(email.html)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_cancellation_after_refunds_promises_only_what_is_left(locale):
    # given: the sample order (49.90 EUR) paid, 18.10 refunded before its cancellation, which
    # announces no refund of its own
    context = sample_context("order_cancellation", locale, placed_at=PLACED_AT)
    context["order"]["paid_on"] = "14.03.2026"
    context["cancellation"] = context["cancellation"] | {
        "refunds": [],
        "refunded": "",
        "refunded_before": "18.10 EUR",
        "left_to_refund": "31.80 EUR",
    }
    # when
    email = email_render(shipped_source("order_cancellation", locale), context)
    # then: what was refunded and what is left, never the whole amount again
    with translation.override(locale):
        left = gettext("You were refunded %(before)s already; we refund the remaining %(amount)s to you.") % {
            "before": "18.10 EUR",
            "amount": "31.80 EUR",
        }
        whole = gettext("If you paid for it, we refund %(amount)s to you.") % {
            "amount": context["order"]["amount"]
        }
    for part in (email.text, _visible_text(email.html)):
        assert left in part
        assert whole not in part
    # and with nothing left
    context["cancellation"]["left_to_refund"] = ""
    email = email_render(shipped_source("order_cancellation", locale), context)
    with translation.override(locale):
        nothing = gettext("Everything you paid was refunded already (%(before)s).") % {"before": "18.10 EUR"}
    assert nothing in email.text
    assert "31.80" not in email.text
