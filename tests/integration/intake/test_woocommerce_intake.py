"""WooCommerce's deliveries at /shops/<slug>/webhook: its unsigned ping answered, its signature
checked on the raw bytes, each delivery stored once (by its body's digest: the delivery id is
not signed, and two orders in one second share it), and the order's state (paid, completed,
refunded, cancelled) turned into its emails once."""

import copy
import hashlib
import uuid

import pytest

from intake.models import PlatformDelivery
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Refund, Shipment
from shops.models import Shop
from tests import woocommerce_payloads as woo

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop() -> Shop:
    return Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )


@pytest.fixture
def deliver(client, shop):
    def post(topic: str, payload: dict, *, delivery_id: str | None = None, **headers):
        body = woo.body_of(payload)
        signed = woo.signed_headers(body, topic=topic, delivery_id=delivery_id or uuid.uuid4().hex) | headers
        return client.post("/shops/tea-house-woo/webhook", body, content_type="application/json", **signed)

    return post


def _emails(order: Order) -> list[tuple[str, str]]:
    return sorted((n.kind, n.status) for n in Notification.objects.filter(order=order))


def test_the_ping_sent_when_a_webhook_is_saved_is_answered_200_and_stores_nothing(client, shop):
    # when: WC_Webhook::deliver_ping, unsigned, a form body
    response = client.post(
        "/shops/tea-house-woo/webhook",
        b"webhook_id=12",
        content_type="application/x-www-form-urlencoded",
        HTTP_USER_AGENT="WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
    )
    # then
    assert response.status_code == 200
    assert not PlatformDelivery.objects.exists()


def test_a_new_order_is_stored_with_its_lines_priced_with_their_taxes(deliver, shop):
    # when
    response = deliver("order.created", woo.ORDER)
    # then
    assert (response.status_code, response.json()["detail"]) == (200, "used")
    order = Order.objects.get(shop=shop, platform_order_id="727")
    assert (order.number, order.customer_email, order.customer_name) == (
        "727",
        "ada@example.com",
        "Ada Lovelace",
    )
    assert (str(order.amount), order.currency, order.status) == ("59.70", "EUR", "paid")
    content = order.versions.get().content
    assert [
        (line["sku"], line["quantity"], line["unit_price"], line["total"], line["tax_rate"])
        for line in content["lines"]
    ] == [("TEA-GREEN", 2, 1290, 2580, "0.19"), ("POT-1", 1, 3400, 3400, "0.19")]
    assert content["shipping"] == {"method": "DHL Paket", "price": 490}
    assert content["discounts"] == [{"amount": 500, "code": "welcome5"}]
    assert (content["tax_total"], content["total"], content["payment_method"]) == (
        953,
        5970,
        "Credit card (Stripe)",
    )
    assert content["billing_address"]["phone"] == "+49 30 1234567"
    assert _emails(order) == [("order_confirmation", "pending")]


def test_a_delivery_sent_again_is_stored_once(deliver, shop):
    # given
    deliver("order.created", woo.ORDER, delivery_id="d41d8cd98f00b204")
    # when
    again = deliver("order.created", woo.ORDER, delivery_id="d41d8cd98f00b204")
    # then
    assert again.json()["detail"] == "duplicate"
    assert PlatformDelivery.objects.count() == 1
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


def test_one_signed_delivery_posted_again_under_fresh_delivery_ids_or_topics_is_stored_once(deliver, shop):
    # given: one delivery of a large order, captured on its way (WooCommerce signs the body alone:
    # the delivery id and the topic are headers anyone can set)
    large = woo.order(customer_note="x" * 1_000_000)
    first = deliver("order.created", large, delivery_id="d-first")
    # when: posted again and again, each time under a fresh delivery id, some under another topic
    topics = ["order.created"] * 3 + ["order.updated", "order.restored"]
    again = [deliver(topic, large, delivery_id=uuid.uuid4().hex) for topic in topics]
    # then: the first is stored, every copy is a duplicate that stores nothing
    assert first.json()["detail"] == "used"
    assert [answer.json()["detail"] for answer in again] == ["duplicate"] * len(topics)
    [stored] = PlatformDelivery.objects.all()
    assert "d-first" in stored.webhook_id  # the delivery's id stays for a person tracing it
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


def test_a_delivery_stored_before_its_key_was_its_body_s_digest_changes_nothing_when_sent_again(
    deliver, shop
):
    # given: a delivery stored under the former key, its delivery id with the body's digest
    deliver("order.created", woo.ORDER, delivery_id="d41d8cd98f00b204")
    digest = hashlib.sha256(woo.body_of(woo.ORDER)).hexdigest()
    PlatformDelivery.objects.update(event_key=f"d41d8cd98f00b204:{digest}")
    order = Order.objects.get(shop=shop)
    emails = _emails(order)
    # when: the same delivery comes again after the deploy
    again = deliver("order.created", woo.ORDER, delivery_id="d41d8cd98f00b204")
    # then: it is stored once more and applied again, which changes nothing
    assert again.json()["detail"] == "used"
    assert PlatformDelivery.objects.get(pk=again.json()["delivery"]).reason == (
        "nothing new: everything it says was applied before"
    )
    assert list(Order.objects.filter(shop=shop)) == [order]
    assert _emails(order) == emails
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1


def test_two_orders_delivered_in_the_same_second_share_a_delivery_id_and_both_count(deliver, shop):
    # given: wp_hash(webhook id . time()) is the same for both
    second = woo.order(id=728, number="728")
    # when
    first_answer = deliver("order.created", woo.ORDER, delivery_id="same-second")
    second_answer = deliver("order.created", second, delivery_id="same-second")
    # then
    assert (first_answer.json()["detail"], second_answer.json()["detail"]) == ("used", "used")
    assert sorted(str(order.platform_order_id) for order in Order.objects.all()) == ["727", "728"]


@pytest.mark.parametrize(
    ("headers", "detail"),
    [
        ({"HTTP_X_WC_WEBHOOK_SIGNATURE": "bm90IGl0"}, "not signed with this webhook's secret"),
        ({"HTTP_X_WC_WEBHOOK_SIGNATURE": ""}, "not signed with this webhook's secret"),
        ({"HTTP_X_WC_WEBHOOK_SIGNATURE": "ü" * 44}, "not signed with this webhook's secret"),
        ({"HTTP_X_WC_WEBHOOK_SOURCE": "https://other-shop.example/"}, "from https://other-shop.example/"),
    ],
    ids=["wrong signature", "no signature", "non-ASCII signature", "another store"],
)
def test_a_delivery_not_proven_to_be_this_stores_is_refused(deliver, headers, detail):
    response = deliver("order.created", woo.ORDER, **headers)
    assert response.status_code == 401
    assert detail in response.json()["detail"]
    assert not PlatformDelivery.objects.exists()


def test_a_completed_order_has_left_in_one_parcel_with_its_tracking(deliver, shop):
    # given
    deliver("order.created", woo.ORDER)
    tracking = {
        "key": "_wc_shipment_tracking_items",
        "value": [
            {
                "tracking_provider": "DHL",
                "tracking_number": "00340434161234567890",
                "custom_tracking_link": "",
                "date_shipped": "1733050800",
                "tracking_id": "a1b2",
            }
        ],
    }
    completed = woo.order(status="completed", date_modified_gmt="2026-12-01T08:00:00", meta_data=[tracking])
    # when
    response = deliver("order.updated", completed)
    # saved again in WooCommerce: a new delivery of the same bytes, a duplicate (the same state)
    again = deliver("order.updated", completed)
    # then
    assert (response.json()["detail"], again.json()["detail"]) == ("used", "duplicate")
    [shipment] = Shipment.objects.all()
    assert (shipment.shop_shipment_id, shipment.carrier, shipment.tracking_number) == (
        "completed-727",
        "DHL",
        "00340434161234567890",
    )
    assert [line["quantity"] for line in shipment.lines] == [2, 1]  # everything
    assert _emails(shipment.order) == [("order_confirmation", "pending"), ("order_shipment", "pending")]


def test_a_refund_and_a_cancellation_each_become_their_email(deliver, shop):
    # given
    deliver("order.created", woo.ORDER)
    refunded = woo.order(
        date_modified_gmt="2026-12-01T08:00:00",
        refunds=[{"id": 801, "reason": "One bag arrived torn", "total": "-12.90"}],
    )
    # when
    deliver("order.updated", refunded)
    cancelled = copy.deepcopy(refunded) | {
        "status": "cancelled",
        "date_modified_gmt": "2026-12-01T09:00:00",
        "refunds": [*refunded["refunds"], {"id": 802, "reason": "Cancelled", "total": "-46.80"}],
    }
    deliver("order.updated", cancelled)
    # then
    order = Order.objects.get()
    assert order.status == "cancelled"
    assert sorted(Refund.objects.values_list("shop_refund_id", "amount_minor", "in_cancellation")) == [
        ("801", 1290, False),
        ("802", 4680, True),
    ]
    assert _emails(order) == [
        ("order_cancellation", "pending"),
        ("order_confirmation", "pending"),
        ("order_refund", "pending"),
    ]


def test_an_update_older_than_the_applied_one_changes_nothing(deliver, shop):
    # given
    deliver("order.created", woo.ORDER)
    deliver("order.updated", woo.order(status="cancelled", date_modified_gmt="2026-12-01T09:00:00"))
    # when: a completion saved before the cancellation, delivered after it
    late = deliver("order.updated", woo.order(status="completed", date_modified_gmt="2026-12-01T08:00:00"))
    # then
    assert late.json()["detail"] == "stale"
    assert not Shipment.objects.exists()


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"prices_include_tax": False}, "taxes are added on top of its prices"),
        ({"fee_lines": [{"id": 1, "name": "Gift wrap", "total": "2.00", "total_tax": "0.00"}]}, "has fees"),
        ({"billing": {"first_name": "Ada", "email": ""}}, "names no email address (billing.email)"),
        ({"total": "61.00"}, "Its amounts do not add up (total)"),
    ],
    ids=["taxes on top", "fees", "no address", "does not add up"],
)
def test_an_order_that_cannot_be_used_is_kept_with_its_reason(deliver, shop, changes, reason):
    response = deliver("order.created", woo.order(**changes))
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    assert reason in PlatformDelivery.objects.get().reason
    assert not Order.objects.exists()


def test_topics_that_send_no_email_are_answered_and_stored(deliver, shop):
    response = deliver("product.updated", {"id": 93, "name": "Green tea 100 g"})
    assert (response.status_code, response.json()["detail"]) == (200, "topic_unused")
