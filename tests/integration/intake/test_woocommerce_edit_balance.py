"""A paid WooCommerce order edited up: WooCommerce edits an order's lines only on hold or
pending payment, and keeps the `date_paid` of its first payment meanwhile. Its edited total is
not taken as paid (the refund ceiling, what the documents say came in) while the order waits for
the balance, only once the shop moves it on; never by a refund, which WooCommerce lets the shop
record by hand, nor by the status refunded that such a refund sets. Each delivery is posted
signed through the real webhook view."""

from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Order, Refund
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import documents

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _teapot_added(modified: str, status: str, **changes: Any) -> dict[str, Any]:
    """The paid order with a second teapot added (93.70), saved with `status`."""
    edited = woo.order(**{"date_modified_gmt": modified, "total": "93.70", "total_tax": "14.96", **changes})
    edited["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    edited["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    edited["status"] = status
    return edited


def _order() -> Order:
    return Order.objects.get(platform_order_id=str(woo.ORDER_ID))


@pytest.mark.parametrize("status", ["on-hold", "pending"])
def test_an_edit_saved_waiting_for_its_balance_leaves_what_came_in(woo_deliver, status):
    # given: a paid order of 59.70
    woo_deliver("order.created", woo.ORDER)
    # when: the shop puts it on hold (or back to pending) and adds a teapot (93.70): its 34.00
    # not yet collected, its `date_paid` still the first payment's
    edited = woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", status))
    # then: edited, and what came in is still 59.70
    assert edited.reason == "order edited (version 2)", edited.reason
    assert _order().paid_minor == 5970


def test_a_refund_recorded_of_the_edited_total_while_its_balance_is_due_is_refused(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    # when: a refund of the whole edited total is saved while the order is still on hold
    refund = {"id": 804, "reason": "Everything", "total": "-93.70"}
    refunded = woo_deliver("order.updated", _teapot_added("2026-12-01T09:00:00", "on-hold", refunds=[refund]))
    # then: beyond what came in (59.70), refused with the reason
    assert refunded.outcome == Outcome.COULD_NOT_USE, refunded.reason
    assert not Refund.objects.filter(order=_order()).exists()
    assert "but only 59.70 EUR of the 59.70 EUR paid is not refunded yet" in refunded.reason
    assert _order().paid_minor == 5970


def test_the_status_refunded_that_a_refund_by_hand_sets_is_no_payment_either(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    # when: the whole edited total refunded by hand: WooCommerce sets the status refunded itself
    refund = {"id": 804, "reason": "Everything", "total": "-93.70"}
    refunded_by_hand = _teapot_added("2026-12-01T09:00:00", "refunded", refunds=[refund])
    refunded = woo_deliver("order.updated", refunded_by_hand)
    # then: still beyond what came in, refused with the reason, nothing stored
    assert refunded.outcome == Outcome.COULD_NOT_USE, refunded.reason
    assert "but only 59.70 EUR of the 59.70 EUR paid is not refunded yet" in refunded.reason
    assert not Refund.objects.filter(order=_order()).exists()
    assert _order().paid_minor == 5970


def test_an_edit_s_balance_counts_once_the_shop_moves_the_order_on(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    # when: the shop took the balance and moved the order back to processing
    moved_on = woo_deliver("order.updated", _teapot_added("2026-12-01T09:00:00", "processing"))
    # then
    assert moved_on.outcome == Outcome.USED, moved_on.reason
    assert _order().paid_minor == 9370


def test_an_edit_s_balance_never_collected_is_not_paid_by_the_cancellation(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70: its 34.00 awaited (a bank transfer)
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    # when: the shop cancels it, the balance never having come in
    cancelled = woo_deliver("order.updated", _teapot_added("2026-12-01T09:00:00", "cancelled"))
    # then: cancelled, and what came in is still 59.70; the 34.00 never paid is credited with
    # the cancellation, so its documents bill what came in
    order = _order()
    assert (cancelled.outcome, order.status) == (Outcome.USED, Order.Status.CANCELLED), cancelled.reason
    assert order.paid_minor == 5970
    assert documents(order) == [
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 9370),
        ("credit_note", -3400),
    ]


def test_after_such_a_cancellation_a_refund_of_the_edited_total_is_refused(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70, cancelled with its balance unpaid
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    woo_deliver("order.updated", _teapot_added("2026-12-01T09:00:00", "cancelled"))
    # when: a refund of the edited total is recorded (by hand: WooCommerce lets the shop)
    refund = {"id": 806, "reason": "Cancelled", "total": "-93.70"}
    refunded = woo_deliver(
        "order.updated", _teapot_added("2026-12-01T10:00:00", "cancelled", refunds=[refund])
    )
    # then: beyond what came in, refused with the reason, nothing stored
    assert refunded.outcome == Outcome.COULD_NOT_USE, refunded.reason
    assert "but only 59.70 EUR of the 59.70 EUR paid is not refunded yet" in refunded.reason
    assert not Refund.objects.filter(order=_order()).exists()


def test_after_such_a_cancellation_a_refund_of_what_came_in_leaves_nothing_billed(woo_deliver):
    # given: a paid order of 59.70, edited on hold to 93.70, cancelled with its balance unpaid
    woo_deliver("order.created", woo.ORDER)
    woo_deliver("order.updated", _teapot_added("2026-12-01T08:00:00", "on-hold"))
    woo_deliver("order.updated", _teapot_added("2026-12-01T09:00:00", "cancelled"))
    # when: the 59.70 that came in is refunded
    refund = {"id": 807, "reason": "Cancelled", "total": "-59.70"}
    refunded = woo_deliver(
        "order.updated", _teapot_added("2026-12-01T10:00:00", "cancelled", refunds=[refund])
    )
    # then: recorded and credited: the documents of an order whose money all went back bill nothing
    order = _order()
    assert Refund.objects.get(order=order).amount_minor == 5970, refunded.reason
    assert sum(total for _, total in documents(order)) == 0, documents(order)
