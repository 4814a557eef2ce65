"""An order first seen through its platform's delivery is created paid as much as the payload
proves came in (intake/platform_payments.py), never more: that is the ceiling of its refunds and
what its documents say came in. Shopify's figures give the amount (a deposit, an edit's balance
due, an edit and a refund made before we heard of the order); a WooCommerce order that waits for
a payment says no amount, so its payment counts once the shop moves it on. No "paid" email either
way: the customer's emails are the confirmation and those of later events. Each delivery is
posted signed through the real webhook view."""

import copy
from decimal import Decimal
from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Order, Refund
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import deliver, kinds, money, tea_house_order, with_mug

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _deposit(updated_at: str = "2026-12-01T10:00:00+01:00", **changes: Any) -> dict[str, Any]:
    """The 59.70 order with a deposit of 20.00 taken: 39.70 due, as Shopify says it."""
    order = shopify.order(updated_at=updated_at, financial_status="partially_paid", **changes)
    money(order, "current_total_price", "59.70")
    order["total_outstanding"] = "39.70"
    return order


def test_a_shopify_order_first_seen_partially_paid_is_paid_what_came_in(tea_house):
    # when: the first we hear of the order is its deposit of 20.00
    delivery = deliver("orders/create", _deposit())
    # then: paid 20.00 of its 59.70, said in the delivery's reason; its confirmation alone
    order = tea_house_order()
    assert delivery.reason == "order created; paid in part: 20.00 of 59.70 EUR", delivery.reason
    assert (order.status, order.paid_minor) == (Order.Status.PAID, 2000)
    assert order.paid_at is not None
    assert kinds(order) == ["order_confirmation"]


def _refund_of(amount: str) -> dict[str, Any]:
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["amount"] = amount
    return refund


def test_a_refund_of_part_of_the_deposit_leaves_what_came_in(tea_house):
    # given: an order first seen with a deposit of 20.00
    deliver("orders/create", _deposit())
    # when: 10.00 of it refunded: Shopify's 49.70 outstanding then
    refunded = _deposit("2026-12-01T11:00:00+01:00", refunds=[_refund_of("10.00")])
    refunded |= {"financial_status": "partially_refunded", "total_outstanding": "49.70"}
    delivery = deliver("orders/updated", refunded)
    # then: the refund recorded, and what came in is still 20.00
    order = tea_house_order()
    assert Refund.objects.get(order=order).amount_minor == 1000, delivery.reason
    assert order.paid_minor == 2000


def test_a_refund_beyond_the_deposit_is_refused_and_stores_nothing(tea_house):
    # given: an order first seen with a deposit of 20.00
    deliver("orders/create", _deposit())
    # when: a refund of 30.00 (more than came in)
    delivery = deliver("refunds/create", _refund_of("30.00"))
    # then
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert delivery.reason == (
        "This refund is 30.00 EUR, but only 20.00 EUR of the 20.00 EUR paid is not refunded yet."
    )
    assert not Refund.objects.exists()


def test_a_deposit_s_balance_collected_later_counts_in_full(tea_house):
    # given: an order first seen with a deposit of 20.00
    deliver("orders/create", _deposit())
    # when: Shopify says it is paid, nothing outstanding
    paid = _deposit("2026-12-02T10:00:00+01:00") | {"financial_status": "paid", "total_outstanding": "0.00"}
    delivery = deliver("orders/paid", paid)
    # then
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert tea_house_order().paid_minor == 5970


def test_a_shopify_order_first_seen_partially_paid_without_its_figures_counts_nothing(tea_house):
    # when: partially_paid, and no total_outstanding to tell how much (an older API version)
    delivery = deliver("orders/create", shopify.order(financial_status="partially_paid"))
    # then: created unpaid, the reason saying why
    order = tea_house_order()
    assert order.status == Order.Status.CREATED
    assert "not counted as paid: Shopify says partially_paid" in delivery.reason


def test_a_shopify_order_first_seen_edited_and_refunded_is_paid_what_came_in(tea_house):
    # when: the first we hear of the 59.70 order is after a mug was added (69.60, its 9.90 still
    # due) and a tea bag returned with its 12.90 back
    returned = with_mug(shopify.order(refunds=[copy.deepcopy(shopify.REFUND)]))
    returned["financial_status"] = "partially_refunded"
    returned["line_items"][0]["current_quantity"] = 1
    money(returned, "current_total_price", "56.70")
    returned["total_outstanding"] = "9.90"
    delivery = deliver("orders/create", returned)
    # then: it holds 69.60, of which 59.70 came in; the refund is recorded against that
    order = tea_house_order()
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert (order.amount, order.paid_minor) == (Decimal("69.60"), 5970)
    assert Refund.objects.get(order=order).amount_minor == 1290


def _woo_teapot_added(status: str, **changes: Any) -> dict[str, Any]:
    """The WooCommerce order with a second teapot added (93.70), saved with `status`, its
    `date_paid` that of its first payment."""
    edited = woo.order(**{"total": "93.70", "total_tax": "14.96", **changes})
    edited["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    edited["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    edited["status"] = status
    return edited


def test_a_woocommerce_order_first_seen_waiting_for_its_balance_counts_no_payment(woo_deliver):
    # when: the first we hear of the order is on hold, paid once (date_paid), its total 93.70
    delivery = woo_deliver("order.created", _woo_teapot_added("on-hold"))
    # then: created unpaid, the reason saying why
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert order.status == Order.Status.CREATED, delivery.reason
    assert "not counted as paid: WooCommerce says a payment came in" in delivery.reason
    # and: once the shop moves it on, it is paid in full
    processing = _woo_teapot_added("processing", date_modified_gmt="2026-12-01T09:00:00")
    moved_on = woo_deliver("order.updated", processing)
    order.refresh_from_db()
    assert (order.status, order.paid_minor) == (Order.Status.PAID, 9370), moved_on.reason


def test_a_woocommerce_order_first_seen_edited_and_refunded_by_hand_is_refused(woo_deliver):
    # when: the first we hear of the order is on hold, its 93.70 refunded (recorded by hand)
    refund = {"id": 804, "reason": "Everything", "total": "-93.70"}
    delivery = woo_deliver("order.created", _woo_teapot_added("on-hold", refunds=[refund]))
    # then: nothing proves the money came in: refused with the reason, nothing stored
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert "nothing can go back" in delivery.reason
    assert not Order.objects.exists()


def test_a_woocommerce_order_refunded_but_never_paid_is_refused(woo_deliver):
    # when: no payment date, and refunded by hand (WooCommerce then says "refunded")
    refund = {"id": 805, "reason": "Goodwill", "total": "-59.70"}
    unpaid = woo.order(status="refunded", date_paid=None, date_paid_gmt=None, refunds=[refund])
    delivery = woo_deliver("order.created", unpaid)
    # then
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert delivery.reason == "This refund is 59.70 EUR, but this order was never paid: nothing can go back."
    assert not Order.objects.exists()
