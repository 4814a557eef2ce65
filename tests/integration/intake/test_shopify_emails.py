"""A Shopify shop's order life, delivered as Shopify delivers it (each delivery signed, some
twice, the parcel before its order), emailed by a real worker through RabbitMQ and the mail
simulator: the confirmation, the parcel and the refund, each exactly once, with what the
customer bought, and each presented as its shop and sent from its shop's sender."""

import pytest
from django.test import Client

from notifications.models import Notification
from orders.models import Order
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _deliver(topic: str, payload: dict, event_id: str) -> str:
    body = shopify.body_of(payload)
    headers: dict = shopify.signed_headers(body, topic=topic, event_id=event_id)
    response = Client().post(
        "/shops/tea-house/webhook",
        body,
        content_type="application/json",
        **headers,
    )
    assert response.status_code == 200, response.content
    return response.json()["detail"]


def test_every_email_of_a_shopify_order_goes_out_once_whatever_shopify_repeats(mailsim, start_worker):
    # given
    Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform="shopify",
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
        sender="Tea House <orders@tea-house.example>",
        legal_name="Tea House Berlin GmbH",
        legal_address="Teestraße 5, 10115 Berlin, Germany",
    )
    start_worker()
    # when: the parcel first, the order (twice: a retry, then orders/paid with the same bytes, a
    # duplicate too), the parcel again inside orders/updated, the refund twice
    outcomes = [
        _deliver("fulfillments/create", shopify.FULFILLMENT, "evt-fulfilment"),
        _deliver("orders/create", shopify.ORDER, "evt-create"),
        _deliver("orders/create", shopify.ORDER, "evt-create"),
        _deliver("orders/paid", shopify.ORDER, "evt-paid"),
        _deliver(
            "orders/updated",
            shopify.order(updated_at="2026-12-01T09:00:05+01:00", fulfillments=[shopify.FULFILLMENT]),
            "evt-updated",
        ),
        _deliver("refunds/create", shopify.REFUND, "evt-refund"),
        _deliver("refunds/create", shopify.REFUND, "evt-refund"),
    ]
    # then
    assert outcomes == ["waiting", "used", "duplicate", "duplicate", "used", "used", "duplicate"]
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))

    def all_sent() -> list[Notification] | None:
        emails = list(Notification.objects.filter(order=order, status="sent").order_by("sent_at"))
        return emails if len(emails) == 3 else None

    emails = wait_until(all_sent, timeout=60, message="the order's three emails sent")
    assert emails[0].kind == "order_confirmation"  # sent first, as the customer reads them
    assert sorted(email.kind for email in emails) == ["order_confirmation", "order_refund", "order_shipment"]
    messages = [m for m in mailsim.messages() if m["to"] == ["ada@example.com"]]
    assert len(messages) == 3
    texts = {email.kind: email.email_text for email in emails}
    for expected in ("#1001", "2 × Green tea - 100 g (TEA-GREEN)", "1 × Teapot (POT-1)", "Total: €59.70"):  # noqa: RUF001
        assert expected in texts["order_confirmation"], expected
    assert "Payment: Shopify Payments" in texts["order_confirmation"]  # not the gateway's code
    assert "00340434161234567890" in texts["order_shipment"]
    assert "€12.90" in texts["order_refund"]
    assert Notification.objects.filter(order=order).count() == 3
    # each sent as its shop: its sender, its name and legal data; the rest the settings'
    assert {message["from"] for message in messages} == {"Tea House <orders@tea-house.example>"}
    assert {email.email_from for email in emails} == {"Tea House <orders@tea-house.example>"}
    assert "Seller: Tea House Berlin GmbH, Teestraße 5, 10115 Berlin, Germany" in texts["order_confirmation"]
    assert all("\n--\nTea House · https://shop.example.com\n" in text for text in texts.values()), texts


BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_a_bidi_override_in_a_platform_s_order_or_the_shop_s_settings_is_not_emailed(mailsim, start_worker):
    """The API refuses bidi formatting characters; a platform passes what its checkout took, and
    a shop's settings may hold them. An override would draw a product's name or the shop's
    legal name backwards in the customer's inbox, and one left open everything after it."""
    Shop.objects.create(
        slug="tea-house",
        name="Tea \u202eHouse",
        platform="shopify",
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
        legal_name="Tea House \u2067Berlin GmbH",
        legal_address="Teestraße 5, 10115 Berlin, Germany",
    )
    payload = shopify.order()
    payload["line_items"][1]["title"] = payload["line_items"][1]["name"] = "Tea\u202epot\u202c"
    start_worker()
    # when
    assert _deliver("orders/create", payload, "evt-bidi") == "used"
    # then
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    email = wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").first(), timeout=60, message="sent"
    )
    [message] = [m for m in mailsim.messages() if m["to"] == ["ada@example.com"]]
    sent = [message["subject"], message["text"], message["html"]]
    stored = [email.email_subject, email.email_text, email.email_html]
    assert not {c for part in sent + stored for c in part} & set(BIDI_CONTROLS)
    # every letter is still there, in the order it was written
    assert "1 × Teapot (POT-1)" in message["text"]  # noqa: RUF001
    assert "Tea House Berlin GmbH" in message["text"]
    assert "Teapot" in message["html"]
