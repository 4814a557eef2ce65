"""Two deliveries of one order stamped with the same time (Shopify's `updated_at` and
WooCommerce's `date_modified_gmt` have whole seconds): which is the newer state cannot be told,
so what the second may change back (the lines, the customer's address) is applied only when it
says what the order holds, and is otherwise left out with the reason (intake/same_time.py);
what it adds (a payment, a parcel, a refund) is applied all the same. Each delivery is posted
signed through the real webhook view."""

from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Order, Shipment
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import (
    deliver,
    kinds,
    one_tea_less,
    tea_house_order,
    with_mug,
)

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome
SAME = "2026-12-01T11:00:00+01:00"
LINES_LEFT_OUT = (
    "the platform's change of the order's lines was not applied: a delivery of the order with the same time"
)


@pytest.mark.parametrize("mug_first", [True, False])
def test_two_edits_of_the_same_second_keep_the_first_and_show_the_second_left_out(tea_house, mug_first):
    # given: a paid order of 59.70
    deliver("orders/create", shopify.ORDER)
    mug, tea_less = with_mug(shopify.order(updated_at=SAME)), one_tea_less(SAME)
    first, second = (mug, tea_less) if mug_first else (tea_less, mug)
    # when: two edits stamped with the same second, in either order
    applied = deliver("orders/updated", first)
    held = deliver("orders/updated", second)
    # then: the first stands; the second is used, its edit left out with the reason; the customer
    # is told of one change, never of one undoing it
    order = tea_house_order()
    assert applied.reason == "order edited (version 2)"
    assert (held.outcome, held.reason.startswith(LINES_LEFT_OUT)) == (Outcome.USED, True), held.reason
    assert (order.content_version, str(order.amount)) == (2, "69.60" if mug_first else "46.80")
    assert kinds(order) == ["order_confirmation", "order_edit"]


def test_a_delivery_of_the_same_second_with_other_lines_still_records_its_parcel(tea_house):
    # given: an order edited (a mug added) by a delivery of 11:00:00
    deliver("orders/create", shopify.ORDER)
    edited = deliver("orders/updated", with_mug(shopify.order(updated_at=SAME)))
    assert edited.reason == "order edited (version 2)"
    # when: another delivery of 11:00:00 says one tea bag less, and lists a parcel
    shipped = one_tea_less(SAME) | {"fulfillments": [shopify.FULFILLMENT]}
    delivery = deliver("orders/updated", shipped)
    # then: the parcel is a fact whichever state is newer; the lines are left as they were
    order = tea_house_order()
    assert delivery.reason.startswith(LINES_LEFT_OUT), delivery.reason
    assert f"; shipment {shopify.FULFILLMENT['id']} recorded" in delivery.reason
    assert Shipment.objects.filter(order=order).count() == 1
    assert (order.content_version, str(order.amount)) == (2, "69.60")


def test_a_delivery_of_the_same_second_with_the_same_lines_is_applied_as_any(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: orders/updated stamped with the creation's second, the parcel's news in it
    delivery = deliver("orders/updated", shopify.order(fulfillments=[shopify.FULFILLMENT]))
    # then
    assert delivery.reason == f"shipment {shopify.FULFILLMENT['id']} recorded"


def test_an_address_change_of_the_same_second_is_left_out_with_the_reason(tea_house):
    # given
    deliver("orders/create", shopify.ORDER)
    # when: a delivery stamped with the creation's second names another address
    moved = shopify.order(email="ada@new.example", contact_email="ada@new.example")
    delivery = deliver("orders/updated", moved)
    # then
    order = tea_house_order()
    assert delivery.reason.startswith("the platform's change of the customer's address was not applied")
    assert (order.customer_email, order.platform_customer_email) == ("ada@example.com", "ada@example.com")


def _woo_two_teapots(modified: str) -> dict[str, Any]:
    """The WooCommerce order saved with a second teapot (93.70)."""
    edited = woo.order(date_modified_gmt=modified, total="93.70", total_tax="14.96")
    edited["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    edited["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    return edited


def test_a_woocommerce_save_in_the_creation_s_second_is_applied_by_the_next_save(woo_deliver):
    # given: an order created by a save of 09:30:08
    woo_deliver("order.created", woo.ORDER)
    # when: a save of the same second holds a second teapot, then a later save holds it too
    held = woo_deliver("order.updated", _woo_two_teapots(woo.ORDER["date_modified_gmt"]))
    held_order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    later = woo_deliver("order.updated", _woo_two_teapots("2026-12-01T08:00:00"))
    # then: the first left out, with the reason; the later one applies what the shop holds
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert held.reason.startswith(LINES_LEFT_OUT), held.reason
    assert held_order.content_version == 1
    assert later.reason == "order edited (version 2)"
    assert (order.content_version, str(order.amount)) == (2, "93.70")
