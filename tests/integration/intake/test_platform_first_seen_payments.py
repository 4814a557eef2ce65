"""An order first seen through its platform's delivery is created paid as much as the payload
proves came in (intake/platform_payments.py), never more: that is the ceiling of its refunds and
what its documents say came in. Shopify's figures give the amount (a deposit, an edit's balance
due, an edit and a refund made before we heard of the order), in the order's currency when the
shop keeps its books in another; Saleor's what it charged; a WooCommerce order that waits for a
payment says no amount, so its payment counts once the shop moves it on, and one refunded is paid
what its refunds gave back. No "paid" email either way: the customer's emails are the
confirmation and those of later events. Each delivery is posted signed through the real webhook
view."""

import copy
from decimal import Decimal
from typing import Any

import pytest

from intake.models import PlatformDelivery
from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from orders.models import DailySales, Invoice, Order, Refund
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import (
    deliver,
    documents,
    kinds,
    money,
    tea_house_order,
    with_mug,
)

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


def _deposit_in_another_currency(updated_at: str = "2026-12-01T10:00:00+01:00") -> dict[str, Any]:
    """The 59.70 EUR order of a shop that keeps its books in CHF (59.70 EUR were 56.12 CHF), a
    deposit of 20.00 EUR taken: Shopify's outstanding is in the shop's money, 37.32 CHF."""
    order = _deposit(updated_at) | {"currency": "CHF", "presentment_currency": "EUR"}
    order["current_total_price"] = "56.12"  # the bare field is the shop's money too
    order["current_total_price_set"] = {
        "shop_money": {"amount": "56.12", "currency_code": "CHF"},
        "presentment_money": {"amount": "59.70", "currency_code": "EUR"},
    }
    order["total_outstanding"] = "37.32"
    return order


def test_a_shopify_order_paid_in_part_in_another_currency_is_paid_what_came_in_in_it(tea_house):
    # when: the first we hear of the EUR order of a CHF shop is its deposit of 20.00 EUR
    delivery = deliver("orders/create", _deposit_in_another_currency())
    # then: paid 20.00 EUR of its 59.70 EUR: what is due, converted at the order's own rate
    order = tea_house_order()
    assert delivery.reason == "order created; paid in part: 20.00 of 59.70 EUR", delivery.reason
    assert (order.currency, order.status, order.paid_minor) == ("EUR", Order.Status.PAID, 2000)


def test_a_shopify_balance_collected_in_another_currency_counts_in_full(tea_house):
    # given: the EUR order of a CHF shop, first seen with its deposit of 20.00 EUR
    deliver("orders/create", _deposit_in_another_currency())
    # when: Shopify says it is paid, nothing outstanding
    paid = _deposit_in_another_currency("2026-12-02T10:00:00+01:00")
    delivery = deliver("orders/paid", paid | {"financial_status": "paid", "total_outstanding": "0.00"})
    # then
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert tea_house_order().paid_minor == 5970


def test_a_refund_beyond_a_deposit_in_another_currency_is_refused(tea_house):
    # given: the EUR order of a CHF shop, first seen with its deposit of 20.00 EUR
    deliver("orders/create", _deposit_in_another_currency())
    # when: a refund of 30.00 EUR (more than came in)
    delivery = deliver("refunds/create", _refund_of("30.00"))
    # then: the refund ceiling is what came in, in the order's currency
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert "only 20.00 EUR of the 20.00 EUR paid" in delivery.reason


def test_an_order_paid_in_part_is_invoiced_when_its_balance_comes_in(tea_house):
    # given: an order first seen with a deposit of 20.00: not invoiced yet (INVOICE_ISSUED_WHEN
    # paid: the invoice bills the whole order, once it is paid)
    deliver("orders/create", _deposit())
    assert documents(tea_house_order()) == []
    # when: Shopify says it is paid, nothing outstanding
    paid = _deposit("2026-12-02T10:00:00+01:00") | {"financial_status": "paid", "total_outstanding": "0.00"}
    deliver("orders/paid", paid)
    # then: its invoice, in an email of its own after the confirmation
    order = tea_house_order()
    [invoice] = Invoice.objects.filter(order=order)
    assert (invoice.total_minor, invoice.email_kind, invoice.email_subject_id) == (
        5970,
        "order_invoice",
        invoice.pk,
    )
    assert kinds(order) == ["order_confirmation", "order_invoice"]


def _deposit_of_30(updated_at: str, *, outstanding: str) -> dict[str, Any]:
    """The 59.70 order with a deposit of 30.00 taken, then one tea bag cancelled with its 12.90
    back: Shopify's current total 46.80, `outstanding` due."""
    order = shopify.order(updated_at=updated_at, financial_status="partially_refunded")
    order |= {"refunds": [copy.deepcopy(shopify.REFUND)], "total_outstanding": outstanding}
    order["line_items"][0]["current_quantity"] = 1
    money(order, "current_total_price", "46.80")
    return order


def test_a_refund_made_before_the_balance_is_credited_with_the_late_invoice(tea_house):
    # given: a deposit of 30.00 (29.70 due), then a tea bag's 12.90 back: no invoice, no credit note
    deliver("orders/create", _deposit("2026-12-01T10:00:00+01:00") | {"total_outstanding": "29.70"})
    deliver("orders/updated", _deposit_of_30("2026-12-01T11:00:00+01:00", outstanding="29.70"))
    assert (tea_house_order().paid_minor, documents(tea_house_order())) == (3000, [])
    # when: the 29.70 due comes in
    deliver("orders/updated", _deposit_of_30("2026-12-02T10:00:00+01:00", outstanding="0.00"))
    # then: paid in full, invoiced, and the refund credited, both on the invoice's email: the
    # documents bill what the order holds less what went back
    order = tea_house_order()
    assert order.paid_minor == 5970
    assert documents(order) == [("invoice", 5970), ("credit_note", -1290)]
    assert set(Invoice.objects.filter(order=order).values_list("email_kind", flat=True)) == {"order_invoice"}


def test_the_daily_sales_figure_counts_what_a_payment_in_part_took(tea_house):
    # given: an order first seen with a deposit of 20.00
    deliver("orders/create", _deposit())
    # when: its payment's event is counted
    event = OutboxEvent.objects.get(aggregate_id=str(tea_house_order().id), event_type="order.paid")
    event_dispatch(
        raw_envelope=event.payload, delivery=Delivery(worker="test pid 1", retries=0, max_retries=8)
    )
    # then: one order paid, 20.00 of it, not its 59.70
    sales = DailySales.objects.get()
    assert (sales.currency, sales.paid_orders, str(sales.paid_amount)) == ("EUR", 1, "20.00")


def test_the_daily_sales_figure_counts_a_balance_that_came_in_before_it_was_counted(tea_house):
    # given: an order first seen with a deposit of 20.00, and its 39.70 due collected before a
    # worker counted the payment's event (docs/orders.md, "Paid in part", says so)
    deliver("orders/create", _deposit())
    deliver("orders/updated", _deposit("2026-12-02T10:00:00+01:00") | {"total_outstanding": "0.00"})
    assert tea_house_order().paid_minor == 5970
    # when: its payment's event is counted
    event = OutboxEvent.objects.get(aggregate_id=str(tea_house_order().id), event_type="order.paid")
    event_dispatch(
        raw_envelope=event.payload, delivery=Delivery(worker="test pid 1", retries=0, max_retries=8)
    )
    # then: what had come in when it was counted, on the day of the deposit's payment
    sales = DailySales.objects.get()
    assert (sales.paid_orders, str(sales.paid_amount), sales.day) == (1, "59.70", event.created_at.date())


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


def _saleor_deposit(updated_at: str = "2026-11-30T09:30:08.412309+00:00") -> dict[str, Any]:
    """Saleor's 59.70 order with a deposit of 20.00 charged: PARTIAL, as its charge status says."""
    deposit = saleor.order(updatedAt=updated_at, isPaid=False, chargeStatus="PARTIAL")
    deposit["totalCharged"] = saleor.charged(20.0)
    deposit["transactions"][0]["events"][0]["amount"] = {"amount": 20.0}
    return deposit


def _saleor_order() -> Order:
    return Order.objects.get(platform_order_id=saleor.ORDER_ID)


def test_a_saleor_order_first_seen_partially_charged_is_paid_what_was_charged(saleor_deliver):
    # when: the first we hear of the order is its deposit of 20.00 (charge status PARTIAL)
    assert saleor_deliver("order_created", saleor.event("OrderCreated", _saleor_deposit())) == "used"
    # then: paid 20.00 of its 59.70, said in the delivery's reason; its confirmation alone
    order = _saleor_order()
    reason = PlatformDelivery.objects.latest("received_at").reason
    assert reason == "order created; paid in part: 20.00 of 59.70 EUR", reason
    assert (order.status, order.paid_minor) == (Order.Status.PAID, 2000)
    assert kinds(order) == ["order_confirmation"]


def test_a_saleor_balance_charged_later_counts_in_full(saleor_deliver):
    # given: an order first seen with a deposit of 20.00 charged
    saleor_deliver("order_created", saleor.event("OrderCreated", _saleor_deposit()))
    # when: Saleor charged the rest: FULL, 59.70 charged
    paid = saleor.order(updatedAt="2026-12-01T08:00:00+00:00")
    assert saleor_deliver("order_fully_paid", saleor.event("OrderFullyPaid", paid)) == "used"
    # then
    assert _saleor_order().paid_minor == 5970


def test_a_saleor_order_partially_charged_under_an_earlier_query_counts_nothing(saleor_deliver):
    # when: the webhook's query is one from before totalCharged was selected: PARTIAL, no amount
    deposit = _saleor_deposit()
    del deposit["totalCharged"]
    assert saleor_deliver("order_created", saleor.event("OrderCreated", deposit)) == "used"
    # then: created unpaid, the reason saying why and what to do
    assert _saleor_order().status == Order.Status.CREATED
    reason = PlatformDelivery.objects.latest("received_at").reason
    assert "not counted as paid: Saleor says PARTIAL" in reason, reason
    assert "paste the query the shop's page shows" in reason, reason


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


def _woo_order() -> Order:
    return Order.objects.get(platform_order_id=str(woo.ORDER_ID))


def test_a_woocommerce_order_first_seen_refunded_is_paid_what_its_refunds_gave_back(woo_deliver):
    # when: the first we hear of the order (59.70, paid once: date_paid) says refunded, its
    # refunds giving back 50.00 of it: how much came in is in no field of WooCommerce's order
    refund = {"id": 808, "reason": "Returned", "total": "-50.00"}
    delivery = woo_deliver("order.created", woo.order(status="refunded", refunds=[refund]))
    # then: paid what came in and went back, refunded that: nothing looks kept (59.70 paid, 50.00
    # back) nor owed (an invoice of 59.70 for 50.00 that came in)
    order = _woo_order()
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert (order.status, order.paid_minor) == (Order.Status.PAID, 5000)
    assert Refund.objects.get(order=order).amount_minor == 5000
    assert "paid in part: 50.00 of 59.70 EUR (what its refunds gave back" in delivery.reason
    assert sum(total for _, total in documents(order)) == 0, documents(order)


def test_a_woocommerce_order_first_seen_refunded_in_full_ends_paid_and_refunded(woo_deliver):
    # when: the first we hear of the order says refunded, its 59.70 given back
    refund = {"id": 809, "reason": "Returned", "total": "-59.70"}
    delivery = woo_deliver("order.created", woo.order(status="refunded", refunds=[refund]))
    # then: paid 59.70, refunded 59.70; its invoice credited in full
    order = _woo_order()
    assert (order.status, order.paid_minor) == (Order.Status.PAID, 5970), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 5970
    assert documents(order) == [("invoice", 5970), ("credit_note", -5970)]


def test_a_woocommerce_order_first_seen_refunded_without_its_refunds_counts_nothing(woo_deliver):
    # when: refunded, paid once, and no refund listed to tell how much
    delivery = woo_deliver("order.created", woo.order(status="refunded", refunds=[]))
    # then: created unpaid, the reason saying why: nothing it kept, nothing it owes
    order = _woo_order()
    assert (order.status, order.paid_minor) == (Order.Status.CREATED, None), delivery.reason
    assert (
        "WooCommerce says the order was paid (date_paid) and refunded, but lists no refund" in delivery.reason
    )
    assert documents(order) == []


def test_a_woocommerce_order_first_seen_cancelled_is_paid_what_its_refunds_gave_back(woo_deliver):
    # when: the first we hear of the order (paid once: date_paid) says cancelled, 50.00 refunded
    refund = {"id": 810, "reason": "Cancelled", "total": "-50.00"}
    delivery = woo_deliver("order.created", woo.order(status="cancelled", refunds=[refund]))
    # then: as one first seen refunded: paid what went back, nothing kept nor owed
    order = _woo_order()
    assert (order.status, order.paid_minor) == (Order.Status.CANCELLED, 5000), delivery.reason
    assert Refund.objects.get(order=order).amount_minor == 5000
    assert sum(total for _, total in documents(order)) == 0, documents(order)


def test_a_woocommerce_order_first_seen_cancelled_without_its_refunds_counts_nothing(woo_deliver):
    # when: cancelled, paid once, no refund listed: refunded outside WooCommerce, or not at all
    delivery = woo_deliver("order.created", woo.order(status="cancelled", refunds=[]))
    # then: not taken as paid its total (money a cancelled order would keep), the reason says why
    order = _woo_order()
    assert (order.status, order.paid_minor) == (Order.Status.CANCELLED, None), delivery.reason
    assert "WooCommerce says the order was paid (date_paid) and cancelled" in delivery.reason
    assert documents(order) == []
