"""Attacks on what a platform's order says came in (intake/shopify/payments.py,
intake/saleor/money.py), with payloads a shop's platform signs as they are: odd rates between the
shop's money and the order's, what is due beyond what the order costs, a charge in another
currency. What came in is never more than the payload proves, and a payment reported but not
counted always says why in the delivery's reason."""

from typing import Any

import pytest

from intake.saleor.order import order_from_payload as saleor_order
from intake.shapes import Unusable
from intake.shopify.order import order_from_payload as shopify_order
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify


def _in_chf(shop_total: Any, shown_total: Any, outstanding: str, status: str = "partially_paid") -> dict:
    """Shopify's 59.70 EUR order of a shop keeping its books in CHF: its current total
    `shop_total` CHF, `shown_total` EUR, `outstanding` due in CHF."""
    payload = shopify.order(financial_status=status, currency="CHF", presentment_currency="EUR")
    payload["current_total_price"] = shop_total
    payload["current_total_price_set"] = {
        "shop_money": {"amount": shop_total, "currency_code": "CHF"},
        "presentment_money": {"amount": shown_total, "currency_code": "EUR"},
    }
    payload["total_outstanding"] = outstanding
    return payload


@pytest.mark.parametrize(
    ("shop_total", "shown_total"),
    [("0.00", "59.70"), ("-56.12", "59.70")],
    ids=["the shop's money nothing", "the shop's money negative"],
)
def test_a_rate_from_no_shop_money_counts_nothing_and_says_why(shop_total, shown_total):
    order = shopify_order(_in_chf(shop_total, shown_total, "37.32"))
    assert (order.paid, order.received_minor) == (False, None)
    assert "not counted as paid" in order.payment_unread


@pytest.mark.parametrize(
    ("shop_total", "shown_total", "outstanding"),
    [
        ("56.12", "0.00", "37.32"),  # the order's money nothing: a rate of 0
        ("56.12", "-59.70", "37.32"),  # a negative rate
        ("0.01", "59.70", "37.32"),  # a huge rate: what is due far beyond the total
        ("56.12", "59.70", "100.00"),  # more due than the order costs
    ],
    ids=["rate 0", "rate negative", "rate huge", "outstanding above the total"],
)
def test_figures_that_prove_nothing_came_in_count_nothing_and_say_why(shop_total, shown_total, outstanding):
    # when: Shopify says partially_paid, but its figures leave nothing that came in
    order = shopify_order(_in_chf(shop_total, shown_total, outstanding))
    # then: not paid, and the delivery's reason says why (not a bare "order created")
    assert order.paid is False
    assert "not counted as paid" in order.payment_unread, order.payment_unread
    assert "total_outstanding" in order.payment_unread, order.payment_unread


def test_a_paid_order_whose_figures_prove_nothing_came_in_says_why():
    # Shopify says paid, in the order's own currency, with all of it still due
    payload = shopify.order(financial_status="paid", current_total_price="59.70")
    payload["total_outstanding"] = "59.70"
    order = shopify_order(payload)
    assert order.received_minor == 0
    assert "not counted as paid" in order.payment_unread, order.payment_unread


@pytest.mark.parametrize(
    ("side", "amount"),
    [
        ("shop_money", "NaN"),
        ("shop_money", "Infinity"),
        ("presentment_money", "-Infinity"),
        ("shop_money", "56.123456"),
        ("shop_money", None),
        ("presentment_money", "1E+999999"),
    ],
)
def test_a_rate_that_cannot_be_read_is_refused_naming_its_field(side, amount):
    payload = _in_chf("56.12", "59.70", "37.32")
    payload["current_total_price_set"][side]["amount"] = amount
    with pytest.raises(Unusable, match="current_total_price"):
        shopify_order(payload)


def test_currencies_in_another_case_are_not_taken_for_the_shop_s():
    # "chf" is no ISO 4217 code: the money set's "CHF" is not taken for it, nor a rate read
    payload = _in_chf("56.12", "59.70", "37.32")
    payload["currency"] = "chf"
    order = shopify_order(payload)
    assert (order.paid, order.received_minor) == (False, None)
    assert "not counted as paid" in order.payment_unread


def test_without_the_shop_s_currency_what_is_due_is_converted_as_its_money_set_says():
    # when: the payload leaves out `currency` (the shop's), its money set naming CHF for it
    payload = _in_chf("56.12", "59.70", "37.32")
    del payload["currency"]
    order = shopify_order(payload)
    # then: the 37.32 due are CHF (39.70 EUR), never 37.32 EUR: 20.00 EUR came in, not 22.38
    assert order.received_minor == 2000


def _saleor_partial(**state: Any) -> dict[str, Any]:
    return saleor.event("OrderUpdated", saleor.order(isPaid=False, chargeStatus="PARTIAL", **state))


def test_saleor_s_charge_above_the_total_is_paid_in_full():
    order = saleor_order(_saleor_partial(totalCharged=saleor.charged(100.0)))
    assert (order.paid, order.received_minor) == (True, 10000)


@pytest.mark.parametrize("charged", [-20.0, 0.0], ids=["negative", "nothing"])
def test_saleor_s_partial_charge_of_nothing_counts_nothing_and_says_why(charged):
    order = saleor_order(_saleor_partial(totalCharged=saleor.charged(charged), transactions=[]))
    assert order.paid is False
    assert "not counted as paid: Saleor says PARTIAL" in order.payment_unread, order.payment_unread
    assert "totalCharged" in order.payment_unread


@pytest.mark.parametrize("currency", ["USD", "eur"])
def test_saleor_s_charge_in_another_currency_is_not_read_and_says_so(currency):
    charged = {"currency": currency, "amount": 20.0}
    order = saleor_order(_saleor_partial(totalCharged=charged, transactions=[]))
    assert order.paid is False
    assert f"totalCharged is in {currency}" in order.payment_unread, order.payment_unread


def _with_refund(payload: dict[str, Any], amount: float) -> dict[str, Any]:
    payload["order"]["transactions"][0]["events"].append(saleor.refund_event(503, amount))
    return payload


@pytest.mark.parametrize(
    "charged",
    [None, {"currency": "USD", "amount": 20.0}],
    ids=["an earlier query: no totalCharged", "totalCharged in another currency"],
)
def test_saleor_s_unread_charge_with_a_refund_is_paid_what_the_refund_proves(charged):
    # when: charged in part, its amount not readable, 10.00 of it refunded
    payload = _saleor_partial(totalCharged=charged)
    order = saleor_order(_with_refund(payload, 10.0))
    # then: what came in is at least the 10.00 that went back, and no more is proven: not its
    # 59.70 total (which would invoice the order as paid, and let 59.70 be refunded)
    assert (order.paid, order.paid_in_full, order.received_minor) == (True, False, 1000)
    assert "not counted as paid" not in order.payment_unread
