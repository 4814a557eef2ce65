"""Each platform's reader says whether what came in covers the order's total now (PlatformOrder
`paid_in_full`), apart from whether the order is paid at all: an edit that raised the total
leaves its balance due, and money that went back says nothing of that balance."""

import copy
from typing import Any

import pytest

from intake.saleor.order import order_from_payload as saleor_order
from intake.shopify.order import order_from_payload as shopify_order
from intake.woocommerce.order import order_from_payload as woocommerce_order
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woocommerce


def _shopify_with_mug(**fields: Any) -> dict[str, Any]:
    """Shopify's order with a mug added (69.60 now), one tea bag returned with its 12.90 back:
    its current total 56.70."""
    order = shopify.order(refunds=[copy.deepcopy(shopify.REFUND)], **fields)
    mug = copy.deepcopy(order["line_items"][1])
    mug |= {"id": 6101234999, "sku": "MUG-2", "price": "9.90", "price_set": shopify.money_set("9.90")}
    order["line_items"].append(mug | {"quantity": 1, "current_quantity": 1})
    order["line_items"][0]["current_quantity"] = 1
    for key, amount in (
        ("total_line_items_price", "69.70"),
        ("subtotal_price", "64.70"),
        ("total_price", "69.60"),
        ("current_total_price", "56.70"),
    ):
        order |= {key: amount, f"{key}_set": shopify.money_set(amount)}
    return order


@pytest.mark.parametrize(
    ("status", "outstanding", "in_full"),
    [
        ("partially_refunded", "9.90", False),  # the mug's 9.90 still due
        ("partially_refunded", "0.00", True),
        ("paid", "-12.90", True),  # the customer's favour: more came in than is due
        ("partially_refunded", None, False),  # an older API version: money went back, no more
        ("refunded", None, False),
        ("paid", None, True),
        ("partially_paid", None, False),
    ],
)
def test_shopify_reads_what_came_in_from_what_is_outstanding(status, outstanding, in_full):
    payload = _shopify_with_mug(financial_status=status)
    if outstanding is not None:
        payload["total_outstanding"] = outstanding
    order = shopify_order(payload)
    assert order.content is not None
    assert order.content["total"] == 6960
    assert (order.paid, order.paid_in_full) == (status != "partially_paid", in_full)


def test_shopify_s_outstanding_of_nothing_after_a_cancellation_counts_only_what_went_back():
    # every line taken off the current figures, 59.70 of the 69.60 back, nothing outstanding
    payload = _shopify_with_mug(financial_status="refunded", total_outstanding="0.00")
    payload["refunds"][0]["transactions"][0]["amount"] = "59.70"
    payload |= {"current_total_price": "0.00", "current_total_price_set": shopify.money_set("0.00")}
    assert shopify_order(payload).paid_in_full is False


def test_shopify_s_outstanding_in_the_shop_s_currency_is_not_read_for_an_order_paid_in_another():
    payload = _shopify_with_mug(financial_status="partially_refunded", total_outstanding="0.00")
    payload |= {"currency": "CHF", "presentment_currency": "EUR"}
    order = shopify_order(payload)
    assert (order.paid, order.paid_in_full) == (True, False)


@pytest.mark.parametrize(
    ("state", "paid", "in_full"),
    [
        ({"isPaid": True, "chargeStatus": "FULL"}, True, True),
        ({"isPaid": True, "chargeStatus": "OVERCHARGED"}, True, True),
        # what is charged covers the total less a refund granted and given back
        ({"isPaid": False, "chargeStatus": "FULL"}, True, True),
        # a webhook registered with an earlier query: no totalCharged to tell how much
        ({"isPaid": False, "chargeStatus": "PARTIAL", "totalCharged": None}, False, False),
        ({"isPaid": False, "chargeStatus": "PARTIAL", "totalCharged": saleor.charged(20.0)}, True, False),
        ({"isPaid": False, "chargeStatus": "NONE", "totalCharged": saleor.charged(0.0)}, False, False),
    ],
)
def test_saleor_reads_its_charge_status(state, paid, in_full):
    order = saleor_order(saleor.event("OrderUpdated", saleor.order(**state)))
    assert (order.paid, order.paid_in_full) == (paid, in_full)


def test_saleor_s_refund_makes_the_order_paid_not_paid_in_full():
    refunded = saleor.order(isPaid=False, chargeStatus="NONE", totalCharged=saleor.charged(0.0))
    refunded["transactions"][0]["events"].append(saleor.refund_event(503, 59.7))
    order = saleor_order(saleor.event("OrderRefunded", refunded))
    assert (order.paid, order.paid_in_full) == (True, False)


@pytest.mark.parametrize(("status", "paid"), [("processing", True), ("pending", False), ("on-hold", False)])
def test_woocommerce_cannot_tell_so_paid_is_paid_in_full(status, paid):
    payload = woocommerce.order(status=status)
    if not paid:
        payload |= {"date_paid": None, "date_paid_gmt": None}
    order = woocommerce_order(payload)
    assert (order.paid, order.paid_in_full) == (paid, paid)


def _shopify_in_another_currency(shop: str, shop_total: str, outstanding: str) -> dict[str, Any]:
    """Shopify's 59.70 EUR order of a shop keeping its books in `shop`: its current total
    `shop_total` there, `outstanding` due there (Shopify's total_outstanding has no `_set`)."""
    payload = shopify.order(financial_status="partially_paid", currency=shop, presentment_currency="EUR")
    payload["current_total_price"] = shop_total
    payload["current_total_price_set"] = {
        "shop_money": {"amount": shop_total, "currency_code": shop},
        "presentment_money": {"amount": "59.70", "currency_code": "EUR"},
    }
    payload["total_outstanding"] = outstanding
    return payload


def test_shopify_s_outstanding_in_the_shop_s_currency_is_converted_at_the_order_s_own_rate():
    # 39.70 EUR due, 37.32 CHF as the shop's money says (59.70 EUR were 56.12 CHF)
    order = shopify_order(_shopify_in_another_currency("CHF", "56.12", "37.32"))
    assert (order.paid, order.paid_in_full, order.received_minor) == (True, False, 2000)


def test_shopify_s_balance_due_is_never_rounded_away_in_the_order_s_currency():
    # 1 KRW due of 92000 KRW (59.70 EUR): less than half a cent, still a balance due
    order = shopify_order(_shopify_in_another_currency("KRW", "92000", "1"))
    assert (order.paid_in_full, order.received_minor) == (False, 5969)


def test_shopify_s_outstanding_is_not_converted_by_a_money_set_of_other_currencies():
    # the money set names EUR twice while the shop's money is CHF: no rate to read
    payload = _shopify_in_another_currency("CHF", "56.12", "37.32")
    payload["current_total_price_set"]["shop_money"]["currency_code"] = "EUR"
    order = shopify_order(payload)
    assert (order.paid, order.received_minor, order.payment_unread != "") == (False, None, True)
