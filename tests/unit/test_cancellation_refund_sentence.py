"""A cancellation promises money back only for an order that was paid: an order never paid (a
bank transfer that never came, a payment only authorised, a platform order still pending) is
told that nothing is charged, and a paid one keeps the sentence it had, word for word."""

import re
from datetime import UTC, datetime

import html5lib  # type: ignore[import-untyped]  # no stubs installed (types-html5lib is not a dependency)
import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from notifications.content.context import email_context, sample_order
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import shipped_source
from orders.models import Order

PLACED_AT = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
LOCALES = [code for code, _ in settings.LANGUAGES]
KIND = "order_cancellation"


def _cancellation(order: Order, locale: str) -> RenderedEmail:
    # no refund announced with the cancellation: the case the order's payment decides
    context = email_context(order, locale, None, kind=KIND, about={"refunds": []})
    return email_render(shipped_source(KIND, locale), context)


def _cancelled(locale: str, *, paid_at: datetime | None, status: str = Order.Status.CANCELLED) -> Order:
    order = sample_order(locale, placed_at=PLACED_AT)
    order.status, order.paid_at, order.updated_at = status, paid_at, PLACED_AT
    return order


def _sentences(locale: str, amount: str) -> tuple[str, str]:
    with translation.override(locale):
        return (
            gettext("If you paid for it, we refund %(amount)s to you.") % {"amount": amount},
            gettext("It was not paid, so nothing is charged to you."),
        )


def _parts(email: RenderedEmail) -> list[str]:
    """The text part, and what the HTML part shows (its no-break spaces are entities)."""
    body = html5lib.parse(email.html, namespaceHTMLElements=False).find("body")
    return [email.text, re.sub(r"[ \t\r\n]+", " ", "".join(body.itertext()))]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_cancellation_of_an_order_never_paid_promises_no_refund(locale):
    # given a cancelled order that was never paid
    order = _cancelled(locale, paid_at=None)
    # when
    email = _cancellation(order, locale)
    # then no refund is promised, and the customer reads that nothing is charged
    amount = email_context(order, locale, None)["order"]["amount"]
    refund, not_charged = _sentences(locale, amount)
    for part in _parts(email):
        assert refund not in part
        assert not_charged in part


@pytest.mark.parametrize("locale", LOCALES)
def test_the_cancellation_of_a_paid_order_keeps_its_refund_sentence(locale):
    # given a paid order cancelled without a refund announced with it
    order = _cancelled(locale, paid_at=PLACED_AT)
    # when
    email = _cancellation(order, locale)
    # then
    refund, not_charged = _sentences(locale, email_context(order, locale, None)["order"]["amount"])
    for part in _parts(email):
        assert refund in part
        assert not_charged not in part


def test_an_order_paid_by_the_release_before_paid_at_counts_as_paid():
    # given an order paid during a rolling deploy, by a process that did not write paid_at
    order = _cancelled("en", paid_at=None, status=Order.Status.PAID)
    # when
    email = _cancellation(order, "en")
    # then
    assert "If you paid for it, we refund €49.90 to you." in email.text


def test_the_day_an_order_was_paid_is_a_value_of_its_emails():
    paid = email_context(_cancelled("en", paid_at=PLACED_AT), "en", None)["order"]
    never = email_context(_cancelled("en", paid_at=None), "en", None)["order"]
    assert (paid["paid_on"], never["paid_on"]) == ("March 14, 2026", "")


@pytest.mark.parametrize("locale", LOCALES)
def test_the_cancellation_of_an_order_paid_in_part_promises_what_came_in(locale):
    # given: the sample order (49.90 EUR), of which a platform proved 20.00 came in
    order = _cancelled(locale, paid_at=PLACED_AT)
    order.paid_minor = 2000
    # when
    email = _cancellation(order, locale)
    # then: the refund promised is what came in, never the whole amount
    context = email_context(order, locale, None, kind=KIND, about={"refunds": []})
    paid = context["cancellation"]["left_to_refund"]
    refund, _ = _sentences(locale, paid)
    whole, _ = _sentences(locale, context["order"]["amount"])
    assert "20" in paid
    for part in _parts(email):
        assert refund in part
        assert whole not in part
