"""An order changed on its platform after it was placed (a Shopify order edit, a WooCommerce
order saved with other lines, a Saleor ORDER_UPDATED), posted signed through the real webhook
view: a new OrderVersion and one "your order was changed" email, a credit note and a new invoice
for an invoiced order, nothing for a change a customer does not see, and never a step back to
an older version when deliveries come twice or out of order."""

import copy
import uuid

import pytest

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Invoice, Order, OrderEdit
from shops.models import Shop
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo

pytestmark = pytest.mark.django_db
MUG_LINE = 6101234999


@pytest.fixture
def shopify_deliver(client):
    Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform=Shop.Platform.SHOPIFY,
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
    )

    def post(topic: str, payload: dict) -> PlatformDelivery | None:
        body = shopify.body_of(payload)
        headers = shopify.signed_headers(body, topic=topic, event_id=uuid.uuid4().hex)
        response = client.post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
        assert response.status_code == 200, response.content
        if response.json()["detail"] == "duplicate":
            return None  # the same bytes again: stored once, nothing done
        return PlatformDelivery.objects.latest("received_at")

    return post


def _shopify_edited(updated_at: str = "2026-12-01T11:00:00+01:00") -> dict:
    """ORDER after an edit in Shopify's admin: one tea bag of two removed, a mug added."""
    order = shopify.order(updated_at=updated_at)
    order["line_items"][0]["current_quantity"] = 1
    mug = copy.deepcopy(order["line_items"][1])
    mug |= {"id": MUG_LINE, "title": "Mug", "name": "Mug", "sku": "MUG-2", "price": "9.90"}
    mug |= {"price_set": shopify.money_set("9.90"), "quantity": 1, "current_quantity": 1}
    order["line_items"].append(mug)
    order["current_total_price"] = "56.70"  # 59.70 - 12.90 + 9.90
    order["current_total_price_set"] = shopify.money_set("56.70")
    order["current_total_tax"] = "9.05"
    order["current_total_tax_set"] = shopify.money_set("9.05")
    return order


def _lines(order: Order) -> list[tuple[str, int]]:
    return sorted(
        (line["sku"], line["quantity"]) for line in order.versions.latest("number").content["lines"]
    )


def _kinds(order: Order) -> list[str]:
    return sorted(Notification.objects.filter(order=order).values_list("kind", flat=True))


def test_a_shopify_order_edit_is_a_new_version_with_its_email_credit_note_and_invoice(shopify_deliver):
    # given: a paid order, invoiced with its confirmation
    shopify_deliver("orders/create", shopify.ORDER)
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert _kinds(order) == ["order_confirmation"]
    # when: Shopify tells of the edit, then sends the order as edited
    edited_topic = shopify_deliver("orders/edited", {"order_edit": {"id": 1, "order_id": shopify.ORDER_ID}})
    delivery = shopify_deliver("orders/updated", _shopify_edited())
    # then
    assert edited_topic.outcome == PlatformDelivery.Outcome.TOPIC_UNUSED
    assert "orders/updated delivery carries its new lines" in edited_topic.reason
    assert (delivery.outcome, delivery.reason) == (PlatformDelivery.Outcome.USED, "order edited (version 2)")
    order.refresh_from_db()
    assert _lines(order) == [("MUG-2", 1), ("POT-1", 1), ("TEA-GREEN", 1)]
    assert (order.content_version, str(order.amount)) == (2, "56.70")
    assert order.versions.latest("number").content["discounts"] == [{"amount": 500, "code": "WELCOME5"}]
    edit = OrderEdit.objects.get(order=order)
    assert [(line["sku"], line["before"], line["after"]) for line in edit.lines] == [
        ("TEA-GREEN", 2, 1),
        ("MUG-2", 0, 1),
    ]
    assert (edit.total_before_minor, edit.total_after_minor) == (5970, 5670)
    assert _kinds(order) == ["order_confirmation", "order_edit"]
    documents = list(
        Invoice.objects.filter(order=order).order_by("number").values_list("kind", "total_minor")
    )
    assert documents == [("invoice", 5970), ("credit_note", -5970), ("invoice", 5670)]


def test_a_shopify_edit_delivered_twice_or_before_an_older_delivery_is_applied_once(shopify_deliver):
    # given
    shopify_deliver("orders/create", shopify.ORDER)
    shopify_deliver("orders/updated", _shopify_edited())
    # when: the same state again under another event, then an older state of the order
    again = shopify_deliver("orders/updated", _shopify_edited())
    older = shopify_deliver("orders/paid", shopify.order(updated_at="2026-11-30T10:45:00+01:00"))
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert again is None
    assert older.outcome == PlatformDelivery.Outcome.STALE
    assert (order.content_version, OrderEdit.objects.filter(order=order).count()) == (2, 1)
    assert _lines(order) == [("MUG-2", 1), ("POT-1", 1), ("TEA-GREEN", 1)]
    assert _kinds(order) == ["order_confirmation", "order_edit"]


def test_a_shopify_refund_that_lowers_the_current_quantity_is_a_refund_not_an_edit(shopify_deliver):
    # given
    shopify_deliver("orders/create", shopify.ORDER)
    # when: one tea bag refunded: Shopify's current quantity and total go down with it
    refunded = shopify.order(updated_at="2026-12-02T12:00:05+01:00", refunds=[shopify.REFUND])
    refunded["financial_status"] = "partially_refunded"
    refunded["line_items"][0]["current_quantity"] = 1
    refunded["current_total_price"] = "46.80"
    refunded["current_total_price_set"] = shopify.money_set("46.80")
    delivery = shopify_deliver("orders/updated", refunded)
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert delivery.reason == f"refund {shopify.REFUND['id']} recorded"
    assert (order.content_version, OrderEdit.objects.filter(order=order).count()) == (1, 0)
    assert _kinds(order) == ["order_confirmation", "order_refund"]


def test_a_change_a_customer_does_not_see_is_no_edit(shopify_deliver):
    # given
    shopify_deliver("orders/create", shopify.ORDER)
    # when: the payment's gateway names and the customer's name change, the lines do not
    changed = shopify.order(updated_at="2026-12-01T11:00:00+01:00", payment_gateway_names=["manual"])
    changed["customer"] = changed["customer"] | {"first_name": "Augusta Ada"}
    changed["total_tax"] = "9.50"
    delivery = shopify_deliver("orders/updated", changed)
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert delivery.reason == "nothing new: everything it says was applied before"
    assert (order.content_version, _kinds(order)) == (1, ["order_confirmation"])


def test_an_edit_the_order_cannot_take_is_left_out_with_its_reason_and_the_rest_applied(shopify_deliver):
    # given: an order whose every line has shipped
    shopify_deliver("orders/create", shopify.ORDER)
    shipped = shopify.order(updated_at="2026-12-01T10:00:00+01:00")
    shipped["fulfillments"] = [shopify.FULFILLMENT | {"line_items": shipped["line_items"]}]
    shopify_deliver("orders/updated", shipped)
    # when: an edit arrives
    edited = _shopify_edited() | {"fulfillments": shipped["fulfillments"]}
    delivery = shopify_deliver("orders/updated", edited)
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert delivery.outcome == PlatformDelivery.Outcome.USED
    assert "the platform's change of the order's lines was not applied" in delivery.reason
    assert "can no longer change" in delivery.reason
    assert order.content_version == 1


def test_a_shopify_order_first_received_after_its_edit_is_created_as_edited(shopify_deliver):
    # when: the order's first delivery we get is one after its edit
    shopify_deliver("orders/updated", _shopify_edited())
    # then: one confirmation of the order as it is, no edit to tell of
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert _lines(order) == [("MUG-2", 1), ("POT-1", 1), ("TEA-GREEN", 1)]
    assert (order.content_version, str(order.amount), _kinds(order)) == (1, "56.70", ["order_confirmation"])
    assert list(Invoice.objects.filter(order=order).values_list("kind", "total_minor")) == [("invoice", 5670)]


def test_a_shopify_edit_without_a_current_total_is_left_out_with_the_reason(shopify_deliver):
    # given
    shopify_deliver("orders/create", shopify.ORDER)
    edited = shopify.order(updated_at="2026-12-01T11:00:00+01:00")
    edited["line_items"][0]["current_quantity"] = 1  # and no current_total_price to price it
    # when
    delivery = shopify_deliver("orders/updated", edited)
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert delivery.outcome == PlatformDelivery.Outcome.USED
    assert "The order's edit could not be read" in delivery.reason
    assert "current_total_price" in delivery.reason
    assert order.content_version == 1


def _woo_with_two_pots(modified: str) -> dict:
    order = woo.order(date_modified_gmt=modified, total="93.70", total_tax="14.96")
    order["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    order["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    return order


def test_a_woocommerce_order_saved_with_other_lines_is_edited_once_and_never_goes_back(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when: the shop adds a teapot, then an older save of the order arrives late
    edited = woo_deliver("order.updated", _woo_with_two_pots("2026-12-01T08:00:00"))
    late = woo_deliver("order.updated", woo.order(date_modified_gmt="2026-11-30T12:00:00"))
    # then
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert edited.reason == "order edited (version 2)"
    assert late.outcome == PlatformDelivery.Outcome.STALE
    assert _lines(order) == [("POT-1", 2), ("TEA-GREEN", 2)]
    assert (order.content_version, str(order.amount)) == (2, "93.70")
    assert _kinds(order) == ["order_confirmation", "order_edit"]


def test_a_saleor_order_updated_with_other_lines_is_an_edit(saleor_deliver):
    # given
    assert saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER)) == "used"
    # when
    updated = saleor.order(updatedAt="2026-12-01T08:00:00+00:00")
    updated["lines"][1] |= {"quantity": 2, "totalPrice": {"gross": {"amount": 68.0}}}
    updated["total"] = {"currency": "EUR", "gross": {"amount": 93.7}, "tax": {"amount": 14.96}}
    assert saleor_deliver("order_updated", saleor.event("OrderUpdated", updated)) == "used"
    # then
    order = Order.objects.get(platform_order_id=saleor.ORDER_ID)
    delivery = PlatformDelivery.objects.latest("received_at")
    assert delivery.reason == "order edited (version 2)"
    assert (order.content_version, str(order.amount)) == (2, "93.70")
    assert _kinds(order) == ["order_confirmation", "order_edit"]


def test_a_line_renamed_or_split_on_the_platform_is_no_edit(woo_deliver):
    # given
    woo_deliver("order.created", woo.ORDER)
    # when: the same order, its tea's name read otherwise and its lines in another order
    renamed = woo.order(date_modified_gmt="2026-12-01T08:00:00")
    renamed["line_items"][0]["name"] = "Green tea (100 g)"
    renamed["line_items"].reverse()
    delivery = woo_deliver("order.updated", renamed)
    # then
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    assert delivery.reason == "nothing new: everything it says was applied before"
    assert (order.content_version, _kinds(order)) == (1, ["order_confirmation"])
