"""Attacks on an order changed on its platform that held: odd figures in Shopify's current
quantities and totals, an edit with a parcel, a payment or a refused refund in the same delivery,
edits back and forth, an erased order, another shop's order of the same id, WooCommerce's coupon
removed and lines reordered, Saleor's prices changed at the same total. Each posted signed
through the real webhook view."""

import copy

import pytest
from django.test import Client

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Invoice, Order, OrderEdit, Shipment
from privacy.erasure import customer_erase
from privacy.models import Erasure
from shops.models import Shop
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
EDIT_LEFT_OUT = "The order's edit could not be read"


@pytest.mark.parametrize(
    ("current_quantity", "applied"),
    [(5, False), (-1, False), ("one", False), (1.5, False), (None, False), ([1], False), (1, True)],
    ids=["more than ordered", "negative", "text", "fraction", "null", "a list", "one less"],
)
def test_odd_current_quantities_are_left_out_or_clamped_never_an_error(tea_house, current_quantity, applied):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: on the tea line only
    edited = one_tea_less()
    edited["line_items"][0]["current_quantity"] = current_quantity
    delivery = deliver("orders/updated", edited)
    # then
    order = tea_house_order()
    assert delivery.outcome == Outcome.USED, delivery.reason
    assert order.content_version == (2 if applied else 1), delivery.reason
    if current_quantity in (-1, "one", 1.5, [1]):
        assert EDIT_LEFT_OUT in delivery.reason


@pytest.mark.parametrize(
    "current_total",
    [{"amount": "46.80"}, "NaN", "1e30", "-5.00", "0.00", "46.805", "99.00"],
    ids=["an object", "NaN", "huge", "negative", "zero", "too many decimals", "more than the lines"],
)
def test_an_odd_current_total_leaves_the_edit_out_with_the_reason(tea_house, current_total):
    # given
    deliver("orders/create", shopify.ORDER)
    # when
    edited = one_tea_less()
    edited.pop("current_total_price_set")
    edited["current_total_price"] = current_total
    delivery = deliver("orders/updated", edited)
    # then
    assert delivery.outcome == Outcome.USED
    assert EDIT_LEFT_OUT in delivery.reason
    assert (tea_house_order().content_version, documents(tea_house_order())) == (1, [("invoice", 5970)])


def test_the_presentment_money_is_read_not_the_shops(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: the shop's money says something else than what the customer paid in
    edited = one_tea_less()
    edited["current_total_price_set"]["shop_money"]["amount"] = "1.00"
    edited["current_total_price"] = "1.00"
    delivery = deliver("orders/updated", edited)
    # then
    assert delivery.reason == "order edited (version 2)"
    assert str(tea_house_order().amount) == "46.80"


@pytest.mark.parametrize(
    ("line_item_id", "quantity"),
    [(99999, 1), (shopify.LINE_TEA, 10**9), (shopify.LINE_TEA, -3), (shopify.LINE_TEA, 50)],
    ids=["an unknown line", "huge", "negative", "more than ordered"],
)
def test_odd_refund_lines_never_make_an_error(tea_house, line_item_id, quantity):
    # given
    deliver("orders/create", shopify.ORDER)
    # when
    refund = copy.deepcopy(shopify.REFUND)
    refund["refund_line_items"][0] |= {"line_item_id": line_item_id, "quantity": quantity}
    edited = one_tea_less() | {"refunds": [refund], "financial_status": "partially_refunded"}
    delivery = deliver("orders/updated", edited)
    # then: never an edit that goes back to the refunded line or a 500; the rest as it can
    assert delivery.outcome in {Outcome.USED.value, Outcome.COULD_NOT_USE.value}
    assert tea_house_order().content_version == 1, delivery.reason


def test_a_parcel_of_a_line_the_edit_added_is_recorded_in_the_same_delivery(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: the mug is added and leaves at once, told by one delivery
    edited = with_mug(shopify.order(updated_at="2026-12-01T11:00:00+01:00"))
    parcel = copy.deepcopy(shopify.FULFILLMENT)
    parcel["line_items"] = [copy.deepcopy(edited["line_items"][2])]
    edited["fulfillments"] = [parcel]
    delivery = deliver("orders/updated", edited)
    # then
    order = tea_house_order()
    assert delivery.reason == f"order edited (version 2); shipment {parcel['id']} recorded"
    assert Shipment.objects.get(order=order).lines == [{"sku": "MUG-2", "name": "Mug", "quantity": 1}]
    assert kinds(order) == ["order_confirmation", "order_edit", "order_shipment"]


def test_an_order_edited_before_its_payment_is_invoiced_as_edited(tea_house):
    # given: an order not paid yet
    deliver("orders/create", shopify.order(financial_status="pending"))
    # when: one delivery tells of an edit and the payment
    edited = one_tea_less() | {"financial_status": "paid"}
    delivery = deliver("orders/updated", edited)
    # then
    order = tea_house_order()
    assert delivery.reason == "order edited (version 2); paid"
    assert (order.paid_minor, documents(order)) == (4680, [("invoice", 4680)])
    assert kinds(order) == ["order_confirmation", "order_edit", "order_invoice"]


def test_an_edit_down_and_the_refund_it_owes_in_one_delivery_bill_what_the_order_holds(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: one delivery tells of the edit (one tea bag less) and of its refund (no lines)
    owed = copy.deepcopy(shopify.REFUND) | {"refund_line_items": [], "note": "Order edited"}
    edited = one_tea_less() | {"refunds": [owed], "financial_status": "partially_refunded"}
    money(edited, "current_total_price", "33.90")  # Shopify's current total leaves the refund out
    delivery = deliver("orders/updated", edited)
    # then: the customer paid 46.80 for what the order holds, and the documents bill 46.80
    order = tea_house_order()
    assert delivery.reason == f"order edited (version 2); refund {owed['id']} recorded"
    assert documents(order) == [("invoice", 5970), ("credit_note", -5970), ("invoice", 4680)]
    assert kinds(order) == ["order_confirmation", "order_edit", "order_refund"]


def test_an_edit_with_a_refund_the_order_cannot_take_stores_nothing_of_either(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: the edit comes with a refund of more than was paid
    refund = copy.deepcopy(shopify.REFUND)
    refund["refund_line_items"] = []
    refund["transactions"][0]["amount"] = "80.00"
    edited = one_tea_less() | {"refunds": [refund], "financial_status": "partially_refunded"}
    delivery = deliver("orders/updated", edited)
    # then: nothing half-applied; the next document takes the next number
    order = tea_house_order()
    assert delivery.outcome == Outcome.COULD_NOT_USE
    assert (order.content_version, OrderEdit.objects.count(), kinds(order)) == (1, 0, ["order_confirmation"])
    assert deliver("orders/updated", one_tea_less("2026-12-02T11:00:00+01:00")).outcome == Outcome.USED
    numbers = list(Invoice.objects.order_by("number").values_list("number", flat=True))
    assert numbers == [1, 2, 3]


def test_edits_back_and_forth_each_credit_and_bill_what_the_order_holds(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: one tea less, then back, then one less again, each later than the one before
    back = shopify.order(updated_at="2026-12-02T11:00:00+01:00")
    money(back, "current_total_price", "59.70")
    for payload in (one_tea_less(), back, one_tea_less("2026-12-03T11:00:00+01:00")):
        deliver("orders/updated", payload)
    # then: three edits; every invoice but the last credited in full; numbers unbroken
    order = tea_house_order()
    assert (order.content_version, OrderEdit.objects.filter(order=order).count()) == (4, 3)
    assert documents(order) == [
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 4680),
        ("credit_note", -4680),
        ("invoice", 5970),
        ("credit_note", -5970),
        ("invoice", 4680),
    ]
    assert list(Invoice.objects.order_by("number").values_list("number", flat=True)) == list(range(1, 8))
    assert kinds(order) == ["order_confirmation"] + ["order_edit"] * 3


def test_an_edit_of_an_erased_order_changes_nothing(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    customer_erase(address="ada@example.com", via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    events = Notification.objects.count()
    # when
    delivery = deliver("orders/updated", one_tea_less())
    # then
    order = tea_house_order()
    assert order.erased_at is not None
    assert (order.content_version, Notification.objects.count()) == (1, events), delivery.reason
    assert not OrderEdit.objects.exists()


def test_another_shops_order_of_the_same_id_is_never_edited(tea_house):
    # given: Tea House's order, and a second Shopify shop with an order of the same id
    deliver("orders/create", shopify.ORDER)
    other_secret = "another shop's secret"
    Shop.objects.create(
        slug="coffee-house",
        name="Coffee House",
        platform=Shop.Platform.SHOPIFY,
        domain="coffee-house.myshopify.com",
        webhook_secret=other_secret,
    )
    body = shopify.body_of(one_tea_less())
    headers: dict = shopify.signed_headers(
        body, topic="orders/updated", secret=other_secret, domain="coffee-house.myshopify.com"
    )
    # when
    response = Client().post("/shops/coffee-house/webhook", body, content_type="application/json", **headers)
    # then: the other shop has its own order; Tea House's is as it was
    assert response.status_code == 200
    ours = Order.objects.get(shop__slug="tea-house")
    assert (ours.content_version, kinds(ours)) == (1, ["order_confirmation"])
    assert Order.objects.get(shop__slug="coffee-house").content_version == 1


def test_a_woocommerce_coupon_removed_takes_the_discount_out(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when: the coupon (5.00) is removed
    edited = woo.order(date_modified_gmt="2026-12-01T08:00:00", total="64.70", total_tax="10.33")
    edited |= {"discount_total": "0.00", "discount_tax": "0.00", "coupon_lines": []}
    delivery = woo_deliver("order.updated", edited)
    # then
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert delivery.reason == "order edited (version 2)"
    content = order.versions.latest("number").content
    assert ("discounts" not in content, content["total"]) == (True, 6470)
    assert documents(order) == [("invoice", 5970), ("credit_note", -5970), ("invoice", 6470)]


def test_woocommerce_lines_in_another_order_are_no_edit(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when
    reordered = woo.order(date_modified_gmt="2026-12-01T08:00:00")
    reordered["line_items"].reverse()
    delivery = woo_deliver("order.updated", reordered)
    # then
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert delivery.reason == "nothing new: everything it says was applied before"
    assert (order.content_version, kinds(order)) == (1, ["order_confirmation"])


def test_saleor_prices_changed_at_the_same_total_is_an_edit_naming_the_price(saleor_deliver):
    # given
    assert saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER)) == "used"
    # when: the tea 1.00 dearer each, the teapot 2.00 cheaper
    updated = saleor.order(updatedAt="2026-12-01T08:00:00+00:00")
    for line, unit, total in ((updated["lines"][0], 13.9, 27.8), (updated["lines"][1], 32.0, 32.0)):
        line |= {"unitPrice": {"gross": {"amount": unit}}, "totalPrice": {"gross": {"amount": total}}}
    assert saleor_deliver("order_updated", saleor.event("OrderUpdated", updated)) == "used"
    # then
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    edit = OrderEdit.objects.get(order=order)
    prices = [(line["unit_price_before"], line["unit_price_after"]) for line in edit.lines]
    assert sorted(prices) == [(1290, 1390), (3400, 3200)]
    assert (edit.total_before_minor, edit.total_after_minor) == (5970, 5970)
