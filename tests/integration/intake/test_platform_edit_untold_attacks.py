"""Attacks on the edit stored untold with its cancellation, and on the cap of a platform's
edits (intake/platform_edits.py): each posted signed through the real webhook view. What the
order's documents bill is judged against its billable amount (orders/invoicing/settlement.py):
its total now less what refunds gave back."""

import copy
from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.changes import order_paid_minor
from orders.invoicing.settlement import billable
from orders.models import Invoice, Order, OrderEdit, Refund
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import (
    deliver,
    documents,
    kinds,
    one_tea_less,
    tea_house_order,
    with_mug,
)

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _billed_and_billable(order: Order) -> tuple[int, int]:
    order.refresh_from_db()
    billed = sum(total for _, total in documents(order))
    return billed, billable(order, paid_minor=order_paid_minor(order))


def _mug_added_and_cancelled(*, refund_id: int, refunded: str) -> dict[str, Any]:
    """The Shopify order with a mug added (69.60), cancelled with `refunded` back, no lines."""
    cancelled = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00"))
    cancelled |= {"cancelled_at": "2026-12-03T10:00:00+01:00", "financial_status": "refunded"}
    refund = copy.deepcopy(shopify.REFUND) | {"id": refund_id, "refund_line_items": []}
    refund["transactions"][0]["amount"] = refunded
    cancelled["refunds"] = [refund]
    return cancelled


def _mug_returned(*, of: dict[str, Any], refund_id: int, refunded: str) -> dict[str, Any]:
    """A Shopify refund of `of`'s mug (its last line), returned, with `refunded` back."""
    mug = of["line_items"][-1]
    refund = copy.deepcopy(shopify.REFUND) | {"id": refund_id}
    refund["refund_line_items"] = [
        {"id": 1, "line_item_id": mug["id"], "quantity": 1, "restock_type": "return"}
        | {"line_item": copy.deepcopy(mug)}
    ]
    refund["transactions"][0]["amount"] = refunded
    return refund


def _woo_teapot_added_and_cancelled(modified: str, **changes: Any) -> dict[str, Any]:
    """The WooCommerce order with a second teapot added (93.70), saved as cancelled."""
    cancelled = woo.order(
        **{"date_modified_gmt": modified, "total": "93.70", "total_tax": "14.96", **changes}
    )
    cancelled["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    cancelled["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    cancelled["status"] = "cancelled"
    return cancelled


def test_an_untold_edit_up_with_a_cancellation_and_no_refund_bills_what_the_order_holds(woo_deliver):
    # given: a paid order of 59.70, invoiced
    woo_deliver("order.created", woo.ORDER)
    # when: one save adds a teapot (93.70) and cancels the order; its money is refunded later
    delivery = woo_deliver("order.updated", _woo_teapot_added_and_cancelled("2026-12-01T08:00:00"))
    # then: the order holds 93.70, of which 59.70 came in (a cancellation proves no balance paid);
    # its documents bill what came in: the edit's invoice of 93.70 less the 34.00 never paid,
    # credited by the cancellation. All carried by the cancellation's email (the customer hears
    # of the cancellation alone)
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert order.status == Order.Status.CANCELLED, delivery.reason
    assert order.paid_minor == 5970
    billed, must = _billed_and_billable(order)
    assert billed == must == 5970, documents(order)
    assert kinds(order) == ["order_cancellation", "order_confirmation"]
    carried = Invoice.objects.filter(order=order).exclude(email_kind="order_confirmation")
    assert set(carried.values_list("email_kind", flat=True)) == {"order_cancellation"}


def test_a_refund_of_the_untold_edit_s_line_after_the_cancellation_gets_its_credit_note(woo_deliver):
    # given: one save added a teapot (93.70) and cancelled the order
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _woo_teapot_added_and_cancelled("2026-12-01T08:00:00"))
    # when: the shop refunds the added teapot (34.00)
    refunded = _woo_teapot_added_and_cancelled(
        "2026-12-01T09:00:00", refunds=[{"id": 804, "reason": "Teapot", "total": "-34.00"}]
    )
    delivery = woo_deliver("order.updated", refunded)
    # then: the money back is credited: the documents bill the 59.70 that came in - 34.00
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    refund = Refund.objects.get(order=order)
    assert refund.amount_minor == 3400, delivery.reason
    assert Invoice.objects.filter(refund=refund, total_minor=-3400).exists(), documents(order)
    assert _billed_and_billable(order) == (2570, 2570)


def test_an_order_cancelled_with_an_untold_edit_stays_cancelled_when_its_platform_reopens_it(woo_deliver):
    # given: one save added a teapot (93.70) and cancelled the order
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _woo_teapot_added_and_cancelled("2026-12-01T08:00:00"))
    issued = documents(Order.objects.get(platform_order_id=str(woo.ORDER_ID)))
    # when: a later save sets it back to processing with three teapots
    reopened = _woo_teapot_added_and_cancelled("2026-12-01T09:00:00", total="127.70")
    reopened["line_items"][1] |= {"quantity": 3, "subtotal": "85.71", "total": "85.71"}
    reopened["status"] = "processing"
    delivery = woo_deliver("order.updated", reopened)
    # then: nothing of a cancelled order changes, nor is billed anew; the reason says so
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert (order.status, order.content_version) == (Order.Status.CANCELLED, 2), delivery.reason
    assert documents(order) == issued
    assert _billed_and_billable(order) == (5970, 5970)


def test_a_shopify_untold_edit_with_a_refund_of_all_still_comes_to_nothing(tea_house):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    # when: a mug added (69.60, the balance collected) and the order cancelled with 69.60 back
    cancelled = _mug_added_and_cancelled(refund_id=9012345002, refunded="69.60")
    delivery = deliver("orders/cancelled", cancelled)
    # then
    order = tea_house_order()
    assert order.status == Order.Status.CANCELLED, delivery.reason
    assert _billed_and_billable(order) == (0, 0), documents(order)
    assert kinds(order) == ["order_cancellation", "order_confirmation"]


def test_a_stale_delivery_saying_cancelled_and_edited_changes_nothing(tea_house):
    # given: an order edited (one tea less) by a delivery of 11:00
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", one_tea_less()).reason == "order edited (version 2)"
    # when: a delivery of 10:00 (replayed, or late) says a mug was added and the order cancelled
    late = with_mug(shopify.order(updated_at="2026-12-01T10:00:00+01:00"))
    late["cancelled_at"] = "2026-12-01T10:00:00+01:00"
    deliver("orders/cancelled", late)
    # then: neither its edit nor its cancellation is taken
    order = tea_house_order()
    assert (order.status, order.content_version) == (Order.Status.PAID, 2)


def test_the_untold_edit_is_not_counted_by_the_cap(tea_house, settings):
    # given: a cap of one platform edit; an order cancelled with an untold edit
    settings.PLATFORM_EDITS_PER_ORDER_MAX = 1
    deliver("orders/create", shopify.ORDER)
    cancelled = one_tea_less("2026-12-02T10:00:00+01:00") | {"cancelled_at": "2026-12-02T10:00:00+01:00"}
    delivery = deliver("orders/cancelled", cancelled)
    # then: no OrderEdit is stored for it
    order = tea_house_order()
    assert order.status == Order.Status.CANCELLED, delivery.reason
    assert (order.content_version, OrderEdit.objects.filter(order=order).count()) == (2, 0)


def test_a_refund_of_a_line_added_beyond_the_cap_is_still_recorded(tea_house, settings):
    # given: at most one change of the order, made (one tea less)
    settings.PLATFORM_EDITS_PER_ORDER_MAX = 1
    deliver("orders/create", shopify.ORDER)
    assert deliver("orders/updated", one_tea_less()).reason == "order edited (version 2)"
    # when: a mug is added (69.60, the balance collected) and returned, its 9.90 refunded
    returned = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00"))
    refund = _mug_returned(of=returned, refund_id=9012345003, refunded="9.90")
    returned |= {"refunds": [refund], "financial_status": "partially_refunded"}
    delivery = deliver("orders/updated", returned)
    # then: the refund is recorded by its amount, with its email, and the reason says why
    assert delivery.outcome == Outcome.USED, delivery.reason
    recorded = Refund.objects.get(order=tea_house_order(), amount_minor=990)
    assert recorded.lines == []
    assert "by its amount alone: Order" in delivery.reason
    assert "no line with the SKU MUG-2" in delivery.reason
    assert kinds(tea_house_order()).count("order_refund") == 1
    # the order as we hold it (one tea less, 46.80, paid 59.70): the 9.90 went back from what was
    # paid beyond it, so its documents still bill what it holds
    billed, billable_now = _billed_and_billable(tea_house_order())
    assert billed == billable_now == 4680


def test_a_refund_of_an_unknown_line_beyond_what_was_paid_stays_refused(tea_house):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    # when: a refund of 80.00 names a line the order never held (taken by its amount, it is too much)
    stranger = with_mug(shopify.order(updated_at="2026-12-03T10:00:00+01:00"))
    refund = _mug_returned(of=stranger, refund_id=9012345009, refunded="80.00")
    order = shopify.order(updated_at="2026-12-03T10:00:00+01:00")
    order |= {"refunds": [refund], "financial_status": "partially_refunded"}
    delivery = deliver("orders/updated", order)
    # then: nothing of it is stored, and the reason is the money's
    assert delivery.outcome != Outcome.USED
    assert not Refund.objects.filter(order=tea_house_order()).exists()
    assert "but only 59.70 EUR of the 59.70 EUR paid is not refunded yet" in delivery.reason


def test_an_untold_edit_whose_cancellation_refunds_too_much_stores_nothing(tea_house):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    # when: a mug added (69.60) and the order cancelled with 80.00 "refunded"
    cancelled = _mug_added_and_cancelled(refund_id=9012345004, refunded="80.00")
    delivery = deliver("orders/cancelled", cancelled)
    # then: neither the edit, its documents, nor the cancellation is kept
    order = tea_house_order()
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert (order.status, order.content_version, order.paid_minor) == (Order.Status.PAID, 1, 5970)
    assert documents(order) == [("invoice", 5970)]


def test_a_balance_never_collected_is_not_taken_as_paid_by_the_cancellation_s_refund(tea_house):
    # given: a paid order of 59.70; a mug added (69.60), its 9.90 still due
    deliver("orders/create", shopify.ORDER)
    due = with_mug(shopify.order(updated_at="2026-12-02T10:00:00+01:00"))
    due["financial_status"] = "partially_paid"
    assert deliver("orders/updated", due).reason == "order edited (version 2)"
    # when: the order is cancelled, the 59.70 that came in refunded
    cancelled = _mug_added_and_cancelled(refund_id=9012345005, refunded="59.70")
    delivery = deliver("orders/cancelled", cancelled)
    # then: what was paid stays what came in
    order = tea_house_order()
    assert order.status == Order.Status.CANCELLED, delivery.reason
    assert order.paid_minor == 5970
