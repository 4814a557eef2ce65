"""Shopify's deliveries at /shops/<slug>/webhook: verified on the raw bytes before anything is
read, stored once by the body's digest (what Shopify signs), applied to the order through the
orders' services (so each email is recorded with its event), answered 2xx; what verifies but
cannot be used is kept with its reason, and nothing is lost when deliveries come twice or out of
order."""

import copy
import json

import pytest
from django.test import override_settings

from intake.models import PlatformDelivery, UnusableDelivery
from intake.receive import delivery_rerun
from messaging.models import OutboxEvent
from notifications.models import Notification
from observability.metrics import PLATFORM_DELIVERIES
from orders.models import Order, Refund, Shipment
from shops.models import Shop
from tests import shopify_payloads as shopify

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop() -> Shop:
    return Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform=Shop.Platform.SHOPIFY,
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
    )


@pytest.fixture
def deliver(client, shop):
    """`deliver(topic, payload, event_id=None, **header_changes)`: post it signed, as Shopify does."""

    def post(topic: str, payload: dict, *, event_id: str | None = None, slug: str = "tea-house", **headers):
        body = shopify.body_of(payload)
        signed = shopify.signed_headers(body, topic=topic, event_id=event_id) | headers
        return client.post(f"/shops/{slug}/webhook", body, content_type="application/json", **signed)

    return post


def _emails(order: Order) -> list[tuple[str, str]]:
    return sorted((n.kind, n.status) for n in Notification.objects.filter(order=order))


def test_a_new_order_is_stored_with_its_lines_and_its_confirmation(deliver, shop):
    # when
    response = deliver("orders/create", shopify.ORDER)
    # then
    assert response.status_code == 200, response.content
    assert response.json()["detail"] == "used"
    order = Order.objects.get(shop=shop, platform_order_id=str(shopify.ORDER_ID))
    assert (order.number, order.customer_email, order.customer_name) == (
        "#1001",
        "ada@example.com",
        "Ada Lovelace",
    )
    assert (str(order.amount), order.currency, order.locale, order.status) == ("59.70", "EUR", "en", "paid")
    content = order.versions.get().content
    assert [
        (line["sku"], line["name"], line["quantity"], line["unit_price"], line["total"], line["tax_rate"])
        for line in content["lines"]
    ] == [
        ("TEA-GREEN", "Green tea - 100 g", 2, 1290, 2580, "0.19"),
        ("POT-1", "Teapot", 1, 3400, 3400, "0.19"),
    ]
    assert content["shipping"] == {"method": "DHL Paket", "price": 490}
    assert content["discounts"] == [{"amount": 500, "code": "WELCOME5"}]
    assert (content["tax_total"], content["total"]) == (953, 5970)
    assert content["shipping_address"] == {
        "name": "Ada Lovelace",
        "line1": "Unter den Linden 1",
        "city": "Berlin",
        "country": "DE",
        "postal_code": "10117",
    }
    assert _emails(order) == [("order_confirmation", "pending")]
    assert sorted(OutboxEvent.objects.values_list("event_type", flat=True)) == ["order.created", "order.paid"]
    delivery = PlatformDelivery.objects.get()
    assert (delivery.outcome, delivery.order_id, delivery.topic) == ("used", order.id, "orders/create")
    assert delivery.reason == "order created; paid"


def test_the_same_event_twice_is_stored_once_and_changes_nothing(deliver, shop):
    # given
    deliver("orders/create", shopify.ORDER, event_id="evt-1")
    before = PLATFORM_DELIVERIES.labels("shopify", "duplicate")._value.get()
    # when: Shopify retries the delivery (same X-Shopify-Event-Id, another X-Shopify-Webhook-Id)
    response = deliver("orders/create", shopify.ORDER, event_id="evt-1")
    # then
    assert (response.status_code, response.json()["detail"]) == (200, "duplicate")
    assert PlatformDelivery.objects.count() == 1
    assert Order.objects.count() == 1
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1
    assert PLATFORM_DELIVERIES.labels("shopify", "duplicate")._value.get() == before + 1


def test_one_signed_delivery_posted_again_under_fresh_event_ids_or_topics_is_stored_once(deliver, shop):
    # given: one delivery of a large order, captured on its way (Shopify signs the body alone: the
    # event id and the topic are headers anyone can set)
    large = shopify.order(note="x" * 1_000_000)
    first = deliver("orders/updated", large, event_id="evt-first")
    # when: posted again and again, each time under a fresh event id, some under another topic
    topics = ["orders/updated"] * 17 + ["orders/create", "orders/paid", "refunds/create"]
    again = [deliver(topic, large) for topic in topics]
    # then: the first is stored, every copy is a duplicate that stores nothing
    assert first.json()["detail"] == "used"
    assert [answer.json()["detail"] for answer in again] == ["duplicate"] * len(topics)
    [stored] = PlatformDelivery.objects.all()
    assert "evt-first" in stored.webhook_id  # the event's id stays for a person tracing it
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


def test_a_delivery_stored_before_its_key_was_its_body_s_digest_changes_nothing_when_sent_again(
    deliver, shop
):
    # given: a delivery stored under the former key, its X-Shopify-Event-Id
    deliver("orders/create", shopify.ORDER, event_id="evt-before-the-deploy")
    PlatformDelivery.objects.update(event_key="evt-before-the-deploy")
    order = Order.objects.get(shop=shop)
    emails = _emails(order)
    # when: Shopify retries it after the deploy (the same event id, the same bytes)
    again = deliver("orders/create", shopify.ORDER, event_id="evt-before-the-deploy")
    # then: it is stored once more and applied again, which changes nothing
    assert again.json()["detail"] == "used"
    assert PlatformDelivery.objects.get(pk=again.json()["delivery"]).reason == (
        "nothing new: everything it says was applied before"
    )
    assert list(Order.objects.filter(shop=shop)) == [order]
    assert _emails(order) == emails
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


def test_the_same_order_under_two_events_is_one_order_with_one_confirmation(deliver, shop):
    # when: orders/create and orders/paid, each the whole order (orders/paid as Shopify has it a
    # moment later); and the creation's very bytes under orders/paid, a copy of what was received
    deliver("orders/create", shopify.ORDER)
    response = deliver("orders/paid", shopify.order(updated_at="2026-11-30T10:30:06+01:00"))
    same_bytes = deliver("orders/paid", shopify.ORDER)
    # then
    assert (response.json()["detail"], same_bytes.json()["detail"]) == ("used", "duplicate")
    assert PlatformDelivery.objects.get(topic="orders/paid").reason.startswith("nothing new")
    [order] = Order.objects.all()
    assert _emails(order) == [("order_confirmation", "pending")]


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_X_SHOPIFY_HMAC_SHA256": "bm90IHRoZSBzaWduYXR1cmU="},
        {"HTTP_X_SHOPIFY_HMAC_SHA256": ""},
        # A header's bytes reach the view as Latin-1: a non-ASCII signature is a wrong one.
        {"HTTP_X_SHOPIFY_HMAC_SHA256": "é" * 44},
    ],
    ids=["wrong signature", "no signature", "non-ASCII signature"],
)
def test_a_delivery_not_signed_with_the_shops_secret_is_refused_and_nothing_is_stored(deliver, headers):
    # when
    response = deliver("orders/create", shopify.ORDER, **headers)
    # then
    assert response.status_code == 401
    assert "X-Shopify-Hmac-Sha256" in response.json()["detail"]
    assert not PlatformDelivery.objects.exists()
    assert not Order.objects.exists()


def test_a_body_changed_after_signing_is_refused(client, shop):
    # given
    body = shopify.body_of(shopify.ORDER)
    headers = shopify.signed_headers(body, topic="orders/create")
    tampered = body.replace(b'"59.70"', b'"0.01"')
    # when
    response = client.post("/shops/tea-house/webhook", tampered, content_type="application/json", **headers)
    # then
    assert response.status_code == 401
    assert not Order.objects.exists()


def test_a_delivery_for_another_shop_is_refused_even_when_signed_with_the_apps_secret(deliver):
    # when
    response = deliver("orders/create", shopify.ORDER, HTTP_X_SHOPIFY_SHOP_DOMAIN="other.myshopify.com")
    # then
    assert response.status_code == 401
    assert (
        response.json()["detail"] == f"This delivery is for other.myshopify.com, not {shopify.SHOP_DOMAIN}."
    )
    assert not PlatformDelivery.objects.exists()


def test_an_unknown_or_switched_off_shop_is_not_found(deliver, shop):
    # when
    unknown = deliver("orders/create", shopify.ORDER, slug="no-such-shop")
    shop.active = False
    shop.save()
    switched_off = deliver("orders/create", shopify.ORDER)
    # then
    assert (unknown.status_code, switched_off.status_code) == (404, 404)
    assert "/shops/no-such-shop/webhook" in unknown.json()["detail"]
    assert not PlatformDelivery.objects.exists()


@override_settings(PLATFORM_WEBHOOK_MAX_BODY_BYTES=1000)
def test_an_oversized_body_is_refused_unread(deliver, shop):
    # when
    response = deliver("orders/create", shopify.ORDER)
    # then
    assert response.status_code == 413
    assert "at most 1000" in response.json()["detail"]
    assert not PlatformDelivery.objects.exists()


def test_a_parcel_is_its_own_email_and_a_second_copy_adds_nothing(deliver, shop):
    # given
    deliver("orders/create", shopify.ORDER)
    # when
    first = deliver("fulfillments/create", shopify.FULFILLMENT)
    # the same fulfillment again, inside the order (orders/updated lists it), under another event
    updated = shopify.order(updated_at="2026-12-01T09:00:01+01:00", fulfillments=[shopify.FULFILLMENT])
    second = deliver("orders/updated", updated)
    # then
    assert first.json()["detail"] == second.json()["detail"] == "used"
    order = Order.objects.get()
    [shipment] = Shipment.objects.filter(order=order)
    assert (shipment.shop_shipment_id, shipment.carrier, shipment.tracking_number) == (
        "4451234001",
        "DHL",
        "00340434161234567890",
    )
    assert shipment.lines == [{"sku": "TEA-GREEN", "name": "Green tea - 100 g", "quantity": 2}]
    assert _emails(order) == [("order_confirmation", "pending"), ("order_shipment", "pending")]


def test_a_parcel_that_arrives_before_its_order_waits_and_is_applied_when_the_order_comes(deliver, shop):
    # when: the broker of the platform delivers the fulfillment first
    early = deliver("fulfillments/create", shopify.FULFILLMENT)
    waiting = PlatformDelivery.objects.get()
    assert (early.status_code, early.json()["detail"]) == (200, "waiting")
    assert (waiting.outcome, waiting.platform_order_id) == ("waiting", str(shopify.ORDER_ID))
    assert f"Order {shopify.ORDER_ID} has not been received yet" in waiting.reason
    assert not Shipment.objects.exists()
    deliver("orders/create", shopify.ORDER)
    # then
    waiting.refresh_from_db()
    order = Order.objects.get()
    assert (waiting.outcome, waiting.order_id) == ("used", order.id)
    assert _emails(order) == [("order_confirmation", "pending"), ("order_shipment", "pending")]


def test_a_refund_is_its_own_email_with_its_amount_and_lines(deliver, shop):
    # given
    deliver("orders/create", shopify.ORDER)
    # when
    response = deliver("refunds/create", shopify.REFUND)
    # then
    assert response.json()["detail"] == "used"
    [refund] = Refund.objects.all()
    assert (refund.shop_refund_id, refund.amount_minor, refund.reason, refund.in_cancellation) == (
        "9012345001",
        1290,
        "One bag arrived torn",
        False,
    )
    assert refund.lines == [{"sku": "TEA-GREEN", "name": "Green tea - 100 g", "quantity": 1}]
    assert ("order_refund", "pending") in _emails(refund.order)


def test_a_cancellation_tells_the_refund_made_with_it(deliver, shop):
    # given
    deliver("orders/create", shopify.ORDER)
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["amount"] = "59.70"
    refund["refund_line_items"] = []
    cancelled = shopify.order(
        updated_at="2026-11-30T11:00:00+01:00",
        cancelled_at="2026-11-30T11:00:00+01:00",
        cancel_reason="customer",
        financial_status="refunded",
        refunds=[refund],
    )
    # when
    response = deliver("orders/cancelled", cancelled)
    # then
    assert response.json()["detail"] == "used"
    order = Order.objects.get()
    assert order.status == "cancelled"
    [stored] = Refund.objects.all()
    assert (stored.amount_minor, stored.in_cancellation) == (5970, True)
    assert _emails(order) == [("order_cancellation", "pending"), ("order_confirmation", "pending")]
    assert PlatformDelivery.objects.get(topic="orders/cancelled").reason == (
        "refund 9012345001 recorded with the cancellation; cancelled"
    )


def test_an_update_older_than_the_applied_one_changes_nothing(deliver, shop):
    # given: the order was cancelled (updated at 11:00)
    deliver("orders/create", shopify.ORDER)
    deliver(
        "orders/cancelled",
        shopify.order(updated_at="2026-11-30T11:00:00+01:00", cancelled_at="2026-11-30T11:00:00+01:00"),
    )
    # when: an update of 10:45 that Shopify delivered late (it says: not cancelled, a parcel)
    late = shopify.order(updated_at="2026-11-30T10:45:00+01:00", fulfillments=[shopify.FULFILLMENT])
    response = deliver("orders/updated", late)
    # then
    assert response.json()["detail"] == "stale"
    order = Order.objects.get()
    assert order.status == "cancelled"
    assert not Shipment.objects.exists()
    assert (
        "newer state of the order was applied" in PlatformDelivery.objects.get(topic="orders/updated").reason
    )


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (
            shopify.order(email=None, contact_email=None, customer={"id": 1}),
            "The order names no email address",
        ),
        (shopify.order(total_price="70.00", total_price_set=None), "Its amounts do not add up (total)"),
        (shopify.order(taxes_included=False), "taxes are added on top of its prices"),
        (shopify.order(currency="XXX", presentment_currency="XXX"), "Its currency cannot be taken"),
        (shopify.order(shipping_address=None), "The order has no shipping_address"),
    ],
    ids=["no address", "does not add up", "taxes on top", "unknown currency", "no shipping address"],
)
def test_a_verified_delivery_that_cannot_be_used_is_kept_with_its_reason_and_answered_2xx(
    deliver, shop, payload, reason
):
    # when
    response = deliver("orders/create", payload)
    # then: 200, or Shopify would retry and in the end remove the subscription
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    [delivery] = UnusableDelivery.objects.filter(outcome="could_not_use")
    assert reason in delivery.reason, delivery.reason
    assert json.loads(delivery.body) == json.loads(shopify.body_of(payload))
    assert not Order.objects.exists()
    assert not OutboxEvent.objects.exists()


def test_a_body_that_is_not_json_is_kept_with_the_reason(client, shop):
    # given
    body = b"<order>1001</order>"
    # when
    response = client.post(
        "/shops/tea-house/webhook",
        body,
        content_type="application/xml",
        **shopify.signed_headers(body, topic="orders/create"),
    )
    # then
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    assert PlatformDelivery.objects.get().reason.startswith("The body is not JSON")


def test_a_refusal_of_the_order_undoes_the_whole_delivery_but_keeps_it(deliver, shop):
    # given: the order, then a refund of more than was paid
    deliver("orders/create", shopify.ORDER)
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["amount"] = "80.00"
    # when
    response = deliver("refunds/create", refund)
    # then
    assert response.json()["detail"] == "could_not_use"
    delivery = PlatformDelivery.objects.get(topic="refunds/create")
    assert "This refund is 80.00 EUR, but only 59.70 EUR of the 59.70 EUR paid" in delivery.reason
    assert not Refund.objects.exists()
    # and when: a person runs it again (nothing changed): it stays on the list, counted
    again = delivery_rerun(delivery.id, actor=None, actor_name="test")
    assert again is not None
    assert (again.outcome, again.runs) == ("could_not_use", 2)


def test_a_used_delivery_is_not_run_again(deliver, shop):
    # given
    deliver("orders/create", shopify.ORDER)
    delivery = PlatformDelivery.objects.get()
    # when
    again = delivery_rerun(delivery.id, actor=None, actor_name="test")
    # then
    assert again is None
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


@pytest.mark.parametrize(
    ("topic", "payload", "outcome"),
    [
        ("products/update", {"id": 1}, "topic_unused"),
        ("customers/redact", shopify.CUSTOMER_REDACT, "for_a_person"),
        ("shop/redact", shopify.SHOP_REDACT, "for_a_person"),
    ],
    ids=["products/update", "customers/redact", "shop/redact"],
)
def test_topics_that_send_no_email_are_answered_stored_and_counted(deliver, shop, topic, payload, outcome):
    # given
    before = PLATFORM_DELIVERIES.labels("shopify", outcome)._value.get()
    # when
    response = deliver(topic, payload)
    # then
    assert (response.status_code, response.json()["detail"]) == (200, outcome)
    assert PlatformDelivery.objects.get().outcome == outcome
    assert PLATFORM_DELIVERIES.labels("shopify", outcome)._value.get() == before + 1
    assert not Order.objects.exists()


def test_the_same_order_bytes_first_under_a_topic_we_do_not_use_are_applied_under_one_we_do(deliver, shop):
    # given: the shop also subscribed a topic that carries the whole order and becomes no email
    deliver("orders/create", shopify.ORDER)
    shipped = shopify.order(updated_at="2026-12-01T09:00:00+01:00", fulfillments=[shopify.FULFILLMENT])
    assert deliver("orders/fulfilled", shipped).json()["detail"] == "topic_unused"
    # when: the same bytes come under a topic we apply
    answer = deliver("orders/updated", shipped).json()
    # then: applied (the parcel and its email), and the bytes once more are a duplicate
    assert answer["detail"] == "used"
    assert Shipment.objects.count() == 1
    applied = PlatformDelivery.objects.get(pk=answer["delivery"])
    assert (applied.topic, applied.platform_order_id) == ("orders/updated", str(shopify.ORDER_ID))
    assert deliver("orders/updated", shipped).json()["detail"] == "duplicate"
    assert deliver("orders/fulfilled", shipped).json()["detail"] == "duplicate"
