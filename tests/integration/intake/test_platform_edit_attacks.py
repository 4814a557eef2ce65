"""Attacks on an order changed on its platform (intake/platform_edits.py), each posted signed
through the real webhook view as the platform would post it: what an edit may do to the money
that came in, to the legal documents and to the emails: each a finding, fixed since, or still
open and marked xfail (strict) with its reason; the attacks that held are in
test_platform_edit_attacks_held.py."""

import copy
from decimal import Decimal
from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Order, OrderVersion, Refund
from orders.selectors import order_content
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import (
    deliver,
    documents,
    kinds,
    money,
    one_tea_less,
    tea_house_order,
    with_mug,
)

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _refund_of_everything(order: dict[str, Any], refund_id: int, amount: str) -> dict[str, Any]:
    """A refund of every line, restocked, with `amount` back: what a cancellation with a refund
    in full sends."""
    refund = copy.deepcopy(shopify.REFUND) | {"id": refund_id, "note": "Cancelled"}
    refund["refund_line_items"] = [
        {
            "id": 104689600 + index,
            "line_item_id": item["id"],
            "quantity": item["quantity"],
            "restock_type": "cancel",
            "line_item": copy.deepcopy(item),
        }
        for index, item in enumerate(order["line_items"])
    ]
    refund["transactions"][0]["amount"] = amount
    return refund


def _with_mug_cancelled_and_refunded() -> dict[str, Any]:
    """The order with a mug added (69.60, the balance collected), then cancelled with the 69.60
    the customer paid refunded and every line restocked."""
    cancelled = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00"))
    cancelled |= {"cancelled_at": "2026-12-03T10:00:00+01:00", "cancel_reason": "customer"}
    cancelled["financial_status"] = "refunded"
    for item in cancelled["line_items"]:
        item["current_quantity"] = 0
    money(cancelled, "current_total_price", "0.00")
    cancelled["refunds"] = [_refund_of_everything(cancelled, 9012345002, "69.60")]
    return cancelled


def test_a_cancellation_refunding_an_order_edited_up_is_applied(tea_house):
    # given: a paid order of 59.70, then a mug added on Shopify (69.60, the balance collected)
    deliver("orders/create", shopify.ORDER)
    edited = deliver("orders/updated", with_mug(shopify.order(updated_at="2026-12-01T11:00:00+01:00")))
    assert edited.reason == "order edited (version 2)"
    # when: the shop cancels it, refunding the 69.60 the customer paid
    delivery = deliver("orders/cancelled", _with_mug_cancelled_and_refunded())
    # then: the customer hears of the cancellation and its refund
    order = tea_house_order()
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 6960
    assert kinds(order) == ["order_cancellation", "order_confirmation", "order_edit"]


def test_an_edit_after_a_refund_keeps_the_refund_credited(tea_house):
    # given: a paid order of 59.70, one tea bag (12.90) returned and refunded
    deliver("orders/create", shopify.ORDER)
    assert deliver("refunds/create", shopify.REFUND).outcome == Outcome.USED
    # when: a mug (9.90) is added afterwards
    edited = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00", refunds=[shopify.REFUND]))
    edited["financial_status"] = "partially_refunded"
    edited["line_items"][0]["current_quantity"] = 1
    money(edited, "current_total_price", "56.70")
    delivery = deliver("orders/updated", edited)
    # then: the documents bill what the order holds less what went back: 69.60 - 12.90
    order = tea_house_order()
    assert delivery.reason == "order edited (version 2)"
    assert sum(total for _, total in documents(order)) == 6960 - 1290, documents(order)


def test_the_refund_an_edit_down_owes_credits_no_invoice(tea_house):
    # given: a paid order of 59.70, edited down to 46.80 on Shopify (one tea bag less)
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", one_tea_less()).reason == "order edited (version 2)"
    # when: the shop refunds the 12.90 the edit left it owing, a refund without lines
    owed = copy.deepcopy(shopify.REFUND) | {"refund_line_items": [], "note": "Order edited"}
    assert deliver("refunds/create", owed).outcome == Outcome.USED
    # then: the customer paid 46.80 for what the order holds, and the documents bill 46.80
    order = tea_house_order()
    assert documents(order)[:3] == [("invoice", 5970), ("credit_note", -5970), ("invoice", 4680)]
    assert sum(total for _, total in documents(order)) == 4680, documents(order)


def _tea_refunded(updated_at: str, status: str) -> dict[str, Any]:
    """The order with one tea bag refunded and returned, its money's transaction in `status`."""
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["status"] = status
    order = shopify.order(updated_at=updated_at, refunds=[refund])
    order["financial_status"] = "partially_refunded" if status == "success" else "paid"
    order["line_items"][0]["current_quantity"] = 1
    money(order, "current_total_price", "46.80")
    return order


def test_a_refund_pending_then_done_is_a_refund_not_two_edits(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: one tea bag returned, its money pending at the payment provider, then gone back
    pending = deliver("orders/updated", _tea_refunded("2026-12-02T12:00:05+01:00", "pending"))
    done = deliver("orders/updated", _tea_refunded("2026-12-02T15:00:00+01:00", "success"))
    # then: the refund's email, no edit
    order = tea_house_order()
    assert (order.content_version, kinds(order)) == (1, ["order_confirmation", "order_refund"]), (
        pending.reason,
        done.reason,
    )
    assert documents(order) == [("invoice", 5970), ("credit_note", -1290)]


def _stored_by_an_older_release(order: Order) -> None:
    """The order's content as a release before lines carried `sku_is_line_id` stored it."""
    version = order.versions.get(number=1)
    content = version.content
    for line in content["lines"]:
        line.pop("sku_is_line_id", None)
    OrderVersion.objects.filter(pk=version.pk).update(content=content)


def test_an_order_stored_by_an_older_release_is_not_edited_by_its_next_delivery(tea_house):
    # given: an order with a teapot that has no SKU, stored before lines said so
    placed = shopify.order()
    placed["line_items"][1]["sku"] = ""
    deliver("orders/create", placed)
    _stored_by_an_older_release(tea_house_order())
    # when: its parcel leaves, told by the next orders/updated
    shipped = copy.deepcopy(placed) | {"updated_at": "2026-12-01T09:00:01+01:00"}
    shipped["fulfillments"] = [shopify.FULFILLMENT]
    delivery = deliver("orders/updated", shipped)
    # then: a parcel, and nothing else
    order = tea_house_order()
    assert delivery.reason == f"shipment {shopify.FULFILLMENT['id']} recorded"
    assert (order.content_version, kinds(order)) == (1, ["order_confirmation", "order_shipment"])
    assert documents(order) == [("invoice", 5970)]


def test_a_change_of_a_lines_tax_rate_alone_is_no_edit(saleor_deliver):
    # given
    assert saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER)) == "used"
    # when: the shop's tax app says the tea is taxed at 7 %, its price unchanged
    updated = saleor.order(updatedAt="2026-12-01T08:00:00+00:00")
    updated["lines"][0]["taxRate"] = 0.07
    updated["total"] = {"currency": "EUR", "gross": {"amount": 59.7}, "tax": {"amount": 7.93}}
    assert saleor_deliver("order_updated", saleor.event("OrderUpdated", updated)) == "used"
    # then
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    assert (order.content_version, kinds(order)) == (1, ["order_confirmation"])


def test_an_edit_in_the_delivery_that_cancels_the_order_is_not_told(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when: the shop added a teapot and cancelled the order before its first save was sent
    cancelled = woo.order(date_modified_gmt="2026-12-01T08:00:00", total="93.70", total_tax="14.96")
    cancelled["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    cancelled["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    cancelled["status"] = "cancelled"
    delivery = woo_deliver("order.updated", cancelled)
    # then: the cancellation's email alone
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert order.status == Order.Status.CANCELLED, delivery.reason
    assert kinds(order) == ["order_cancellation", "order_confirmation"]
    # the edit's documents, carried by the cancellation's email, bill what the order holds; the
    # cancellation credits the teapot's 34.00, which never came in (a cancellation is no payment)
    assert documents(order) == [
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 9370),
        ("credit_note", -3400),
    ]


def test_an_order_edited_up_and_cancelled_in_one_delivery_refunds_what_was_paid(tea_house):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    # when: its first delivery since says a mug was added (69.60, the balance collected), then
    # the order cancelled with the 69.60 and every line, the mug's among them, refunded
    delivery = deliver("orders/cancelled", _with_mug_cancelled_and_refunded())
    # then: the refund of what was paid is taken, and the customer hears of the cancellation
    # alone; the order holds what the shop cancelled, and its documents come to nothing
    order = tea_house_order()
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 6960
    assert kinds(order) == ["order_cancellation", "order_confirmation"]
    assert documents(order) == [
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 6960),
        ("credit_note", -6960),
    ]
    content = order_content(order)
    assert content is not None
    assert "MUG-2" in {line["sku"] for line in content["lines"]}


def test_a_woocommerce_order_edited_up_and_cancelled_with_its_refund_is_told_the_cancellation(woo_deliver):
    # given: a paid order of 59.70
    woo_deliver("order.created", woo.ORDER)
    # when: one save says a teapot was added (93.70) and the order cancelled, the 59.70 that came
    # in refunded (WooCommerce edits an order on hold, waiting for the balance, which a
    # cancellation does not say came in: the edited 93.70 is not what can go back)
    cancelled = woo.order(date_modified_gmt="2026-12-01T08:00:00", total="93.70", total_tax="14.96")
    cancelled["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    cancelled["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    cancelled |= {"status": "cancelled", "refunds": [{"id": 803, "reason": "Cancelled", "total": "-59.70"}]}
    delivery = woo_deliver("order.updated", cancelled)
    # then: the cancellation credits the 34.00 never paid, the refund what came in: nothing billed
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 5970
    assert kinds(order) == ["order_cancellation", "order_confirmation"]
    assert documents(order) == [
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 9370),
        ("credit_note", -3400),
        ("credit_note", -5970),
    ]


def test_a_woocommerce_order_edited_up_and_cancelled_with_a_refund_of_its_edited_total_is_refused(
    woo_deliver,
):
    # given: a paid order of 59.70
    woo_deliver("order.created", woo.ORDER)
    # when: one save says a teapot was added (93.70) and the order cancelled, 93.70 "refunded" (a
    # refund WooCommerce lets the shop record by hand, of a balance nothing says came in)
    cancelled = woo.order(date_modified_gmt="2026-12-01T08:00:00", total="93.70", total_tax="14.96")
    cancelled["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    cancelled["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    cancelled |= {"status": "cancelled", "refunds": [{"id": 803, "reason": "Cancelled", "total": "-93.70"}]}
    delivery = woo_deliver("order.updated", cancelled)
    # then: beyond what came in, refused with the amounts; nothing of the delivery stored
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert "but only 59.70 EUR of the 59.70 EUR paid is not refunded yet" in delivery.reason
    assert (order.status, order.paid_minor, documents(order)) == (
        Order.Status.PAID,
        5970,
        [("invoice", 5970)],
    )


def test_a_platform_changes_an_order_at_most_the_cap_s_times_then_the_reason_shows(tea_house, settings):
    # given: at most two changes of one order from its platform, both made
    settings.PLATFORM_EDITS_PER_ORDER_MAX = 2
    deliver("orders/create", shopify.ORDER)
    back = shopify.order(updated_at="2026-12-02T11:00:00+01:00")
    money(back, "current_total_price", "59.70")
    assert deliver("orders/updated", one_tea_less()).reason == "order edited (version 2)"
    assert deliver("orders/updated", back).reason == "order edited (version 3)"
    issued = documents(tea_house_order())
    # when: a shop's app keeps saving the order with other lines
    delivery = deliver("orders/updated", one_tea_less("2026-12-03T11:00:00+01:00"))
    # then: the change is left out, and the delivery says why for an operator; no email, no document
    order = tea_house_order()
    assert delivery.outcome == Outcome.USED
    assert "PLATFORM_EDITS_PER_ORDER_MAX" in delivery.reason, delivery.reason
    assert delivery.reason.startswith("the platform's change of the order's lines was not applied")
    assert (order.content_version, order.amount) == (3, Decimal("59.70"))
    assert kinds(order) == ["order_confirmation", "order_edit", "order_edit"]
    assert documents(order) == issued


def test_an_order_changed_the_cap_s_times_can_still_be_cancelled_with_a_refund_of_its_edit(
    tea_house, settings
):
    # given: at most one change of one order from its platform, made (one tea less: 46.80)
    settings.PLATFORM_EDITS_PER_ORDER_MAX = 1
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", one_tea_less()).reason == "order edited (version 2)"
    # when: the tea back and a mug added (69.60, the balance collected), then cancelled with the
    # 69.60 refunded, in one delivery
    delivery = deliver("orders/cancelled", _with_mug_cancelled_and_refunded())
    # then: the untold change sends nothing, so the cap does not hold it: the refund fits
    order = tea_house_order()
    assert (delivery.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 6960
    assert kinds(order) == ["order_cancellation", "order_confirmation", "order_edit"]
    assert sum(total for _, total in documents(order)) == 0, documents(order)


def test_an_edit_in_another_currency_is_left_out(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: the same order, now in US dollars, with one tea bag less
    edited = shopify.order(updated_at="2026-12-01T11:00:00+01:00", presentment_currency="USD")
    edited["line_items"][0]["current_quantity"] = 1
    money(edited, "current_total_price", "46.80")
    for key in ("total_line_items_price", "subtotal_price", "total_tax", "total_price"):
        edited[f"{key}_set"]["presentment_money"]["currency_code"] = "USD"
    delivery = deliver("orders/updated", edited)
    # then
    order = tea_house_order()
    assert (order.content_version, order.currency) == (1, "EUR"), delivery.reason
    assert "its amounts are in USD, the order's in EUR" in delivery.reason
    assert documents(order) == [("invoice", 5970)]


def test_a_woocommerce_edit_the_service_cannot_take_leaves_the_rest_applied(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when: the shop adds gift wrapping (a fee), then the order leaves, in one save
    completed = woo.shipped(modified="2026-12-01T08:00:00")
    completed["fee_lines"] = [{"id": 1, "name": "Gift wrap", "total": "2.00", "total_tax": "0.00"}]
    completed["total"] = "61.70"
    delivery = woo_deliver("order.updated", completed)
    # then: the parcel's email, the edit left out with the reason
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert kinds(order) == ["order_confirmation", "order_shipment"]
    assert "What the order holds now could not be taken, so it was left as it was" in delivery.reason
    assert "fee_lines" in delivery.reason
    assert order.content_version == 1


def test_a_saleor_order_whose_content_cannot_be_taken_still_gets_its_parcel(saleor_deliver):
    # given
    assert saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER)) == "used"
    # when: a later state whose total no longer adds up, as the parcel leaves
    fulfilled = saleor.order(updatedAt="2026-12-01T08:00:00+00:00", status="FULFILLED")
    fulfilled["total"] = {"currency": "EUR", "gross": {"amount": 0.0}, "tax": {"amount": 0.0}}
    fulfilled["fulfillments"] = [saleor.fulfillment(1, [(saleor.LINE_TEA, "TEA-GREEN", 2)])]
    # then: the parcel's email; the content left as it was, with the reason
    assert saleor_deliver("order_fulfilled", saleor.event("OrderFulfilled", fulfilled)) == "used"
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    delivery = PlatformDelivery.objects.latest("received_at")
    assert "could not be taken, so it was left as it was" in delivery.reason
    assert kinds(order) == ["order_confirmation", "order_shipment"]
    assert order.content_version == 1


def test_a_new_order_whose_content_cannot_be_taken_is_refused_with_the_reason(woo_deliver):
    # when
    with_fee = woo.order(fee_lines=[{"id": 1, "name": "Gift wrap", "total": "2.00", "total_tax": "0.00"}])
    delivery = woo_deliver("order.created", with_fee)
    # then
    assert delivery.outcome == Outcome.COULD_NOT_USE
    assert delivery.reason.startswith("The order has fees (fee_lines)")
    assert not Order.objects.filter(platform_order_id=str(woo.ORDER_ID)).exists()
