"""What came in for an order an edit raised (intake/platform_edits.py `edited_total_paid`): taken
as its new total only when the platform says that total is paid in full (Shopify's
total_outstanding, Saleor's charge status) or when what went back is no less; never because the
platform says money went back. Each delivery is posted signed through the real webhook view,
shaped as the platform sends it; WooCommerce cannot tell (intake/woocommerce/order.py), and its
edited order that says paid is taken as paid in full (test_platform_edit_untold_attacks.py)."""

import copy
from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Order, Refund
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests.integration.intake.platform_edit_support import deliver, money, tea_house_order, with_mug

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _tea_returned_after_a_mug(*, outstanding: str) -> dict[str, Any]:
    """A mug added (69.60), then one tea bag returned with its 12.90 back: Shopify's current
    total 56.70, `outstanding` still due."""
    returned = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00", refunds=[shopify.REFUND]))
    returned["financial_status"] = "partially_refunded"
    returned["line_items"][0]["current_quantity"] = 1
    money(returned, "current_total_price", "56.70")
    returned["total_outstanding"] = outstanding
    return returned


def _mug_due(updated_at: str = "2026-12-02T10:00:00+01:00") -> dict[str, Any]:
    """A mug added (69.60) to the paid 59.70: its 9.90 due, as Shopify says it."""
    due = with_mug(shopify.order(updated_at=updated_at))
    due |= {"financial_status": "partially_paid", "total_outstanding": "9.90"}
    return due


def _cancelled_with_every_line_restocked(*, refunded: str, outstanding: str) -> dict[str, Any]:
    """The mug's order cancelled as Shopify cancels: every line taken off its current figures
    (current_quantity 0, current total 0.00) by a refund restocking them, `refunded` back."""
    cancelled = with_mug(shopify.order(updated_at="2026-12-04T10:00:00+01:00"))
    cancelled |= {"cancelled_at": "2026-12-04T10:00:00+01:00", "financial_status": "refunded"}
    refund = copy.deepcopy(shopify.REFUND) | {"id": 9012345101, "note": "Cancelled"}
    refund["refund_line_items"] = [
        {"id": 104689700 + index, "line_item_id": item["id"], "quantity": item["quantity"]}
        | {"restock_type": "cancel", "line_item": copy.deepcopy(item)}
        for index, item in enumerate(cancelled["line_items"])
    ]
    refund["transactions"][0]["amount"] = refunded
    for item in cancelled["line_items"]:
        item["current_quantity"] = 0
    money(cancelled, "current_total_price", "0.00")
    cancelled |= {"refunds": [refund], "total_outstanding": outstanding}
    return cancelled


def test_a_shopify_refund_while_an_edit_s_balance_is_due_leaves_what_came_in(tea_house):
    # given: a paid order of 59.70, a mug added (69.60), its 9.90 due
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", _mug_due()).reason == "order edited (version 2)"
    # when: a tea bag is returned (partially_refunded), the 9.90 still outstanding
    delivery = deliver("orders/updated", _tea_returned_after_a_mug(outstanding="9.90"))
    # then: its refund is recorded, and what came in is still 59.70
    order = tea_house_order()
    assert Refund.objects.get(order=order).amount_minor == 1290, delivery.reason
    assert order.paid_minor == 5970


def test_a_shopify_order_with_nothing_outstanding_took_its_edited_total(tea_house):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    # when: a mug added (69.60) and a tea bag returned, nothing outstanding: the 9.90 came in
    delivery = deliver("orders/updated", _tea_returned_after_a_mug(outstanding="0.00"))
    # then
    order = tea_house_order()
    assert delivery.reason.startswith("order edited (version 2)"), delivery.reason
    assert order.paid_minor == 6960


def test_a_shopify_cancellation_s_zero_outstanding_is_not_the_balance_collected(tea_house):
    # given: a paid order of 59.70, a mug added (69.60), its 9.90 due
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", _mug_due()).reason == "order edited (version 2)"
    # when: cancelled, the 59.70 that came in refunded: Shopify's outstanding is 0.00 then
    # (nothing is due of a cancelled order), and its current total too
    cancelled = _cancelled_with_every_line_restocked(refunded="59.70", outstanding="0.00")
    delivery = deliver("orders/cancelled", cancelled)
    # then: cancelled with its refund, and what came in stays 59.70
    order = tea_house_order()
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 5970
    assert order.paid_minor == 5970


def test_a_shopify_cancellation_refunding_a_collected_balance_is_applied(tea_house):
    # given: a paid order of 59.70, a mug added (69.60), its 9.90 due, then collected
    deliver("orders/create", shopify.ORDER)
    deliver("orders/updated", _mug_due())
    collected = _mug_due("2026-12-03T10:00:00+01:00")
    deliver("orders/paid", collected | {"financial_status": "paid", "total_outstanding": "0.00"})
    assert tea_house_order().paid_minor == 6960
    # when: cancelled, the 69.60 refunded
    cancelled = _cancelled_with_every_line_restocked(refunded="69.60", outstanding="0.00")
    delivery = deliver("orders/cancelled", cancelled)
    # then
    order = tea_house_order()
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 6960


def _saleor_two_teapots(updated_at: str, **state: Any) -> dict[str, Any]:
    """Saleor's order with a second teapot added (93.70), in the charge state `state` says."""
    edited = saleor.order(updatedAt=updated_at, **state)
    edited["lines"][1] |= {"quantity": 2, "totalPrice": {"gross": {"amount": 68.0}}}
    edited["total"] = {"currency": "EUR", "gross": {"amount": 93.7}, "tax": {"amount": 14.96}}
    return edited


def _saleor_cancelled_with(refunded: float, updated_at: str) -> dict[str, Any]:
    """The two teapots' order cancelled with `refunded` back: nothing charged any more."""
    cancelled = _saleor_two_teapots(
        updated_at, status="CANCELED", isPaid=False, chargeStatus="NONE", totalCharged=saleor.charged(0.0)
    )
    cancelled["transactions"][0]["events"].append(saleor.refund_event(503, refunded))
    return cancelled


def test_a_saleor_edit_partially_charged_then_cancelled_leaves_what_came_in(saleor_deliver):
    # given: a paid order of 59.70, a teapot added (93.70): Saleor charged 59.70 of it (PARTIAL)
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    partial = _saleor_two_teapots("2026-12-01T08:00:00+00:00", isPaid=False, chargeStatus="PARTIAL")
    assert saleor_deliver("order_updated", saleor.event("OrderUpdated", partial)) == "used"
    # when: cancelled, the 59.70 charged refunded
    cancelled = _saleor_cancelled_with(59.7, "2026-12-02T08:00:00+00:00")
    assert saleor_deliver("order_cancelled", saleor.event("OrderCancelled", cancelled)) == "used"
    # then
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    assert (order.status, order.content_version) == (Order.Status.CANCELLED, 2)
    assert order.paid_minor == 5970


def test_a_saleor_edit_charged_in_full_took_its_new_total(saleor_deliver):
    # given
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # when: a teapot added (93.70), charged in full
    full = _saleor_two_teapots(
        "2026-12-01T08:00:00+00:00", isPaid=True, chargeStatus="FULL", totalCharged=saleor.charged(93.7)
    )
    assert saleor_deliver("order_updated", saleor.event("OrderUpdated", full)) == "used"
    # then
    assert Order.objects.get(platform_order_id=saleor.ORDER_ID).paid_minor == 9370


def test_a_saleor_refund_of_the_whole_edited_total_says_it_came_in(saleor_deliver):
    # given: a paid order of 59.70
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # when: one event says a teapot was added (93.70) and the order cancelled with 93.70 back:
    # nothing is charged now (NONE), but what went back came in first
    cancelled = _saleor_cancelled_with(93.7, "2026-12-01T08:00:00+00:00")
    assert saleor_deliver("order_cancelled", saleor.event("OrderCancelled", cancelled)) == "used"
    # then
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    assert order.status == Order.Status.CANCELLED
    assert (order.paid_minor, Refund.objects.get(order=order).amount_minor) == (9370, 9370)
