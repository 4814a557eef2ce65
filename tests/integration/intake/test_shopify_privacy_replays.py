"""Shopify's erasure requests posted again: Shopify signs the body alone, so a captured request
(a proxy's log, a staging copy) can be posted again under a fresh X-Shopify-Event-Id. A copy of
a request received before is a duplicate and erases nothing; a *shop/redact* is carried out only
once the shop has gone quiet (Shopify sends it 48 hours after the app was uninstalled), and the
second one of a shop that came back and left again is carried out too."""

from datetime import timedelta
from typing import Any

import pytest
from django.db.models import F
from django.test import Client

from intake.models import PlatformDelivery
from intake.receive import delivery_rerun
from intake.shopify.shop_redact import SHOP_REDACT_QUIET, hours
from messaging.retention import retention_run
from notifications.models import Notification
from orders.models import Order
from privacy.models import Erasure
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

_QUIET_A_WHILE = SHOP_REDACT_QUIET + timedelta(hours=1)


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


def _post(body: bytes, signature: str, *, topic: str, event_id: str | None = None) -> dict[str, Any]:
    """A delivery posted with these bytes and HMAC (a captured one: under a fresh event id)."""
    headers: dict = shopify.signed_headers(body, topic=topic, event_id=event_id)
    headers["HTTP_X_SHOPIFY_HMAC_SHA256"] = signature
    response = Client().post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    return response.json()


def _captured(payload: dict[str, Any], topic: str) -> tuple[bytes, str]:
    body = shopify.body_of(payload)
    return body, shopify.signed_headers(body, topic=topic)["HTTP_X_SHOPIFY_HMAC_SHA256"]


def _shop_went_quiet(shop: Shop, for_how_long: timedelta = _QUIET_A_WHILE) -> None:
    """Everything the shop delivered so far, received that much earlier."""
    PlatformDelivery.objects.filter(shop=shop).update(received_at=F("received_at") - for_how_long)


def _email_of(platform_order_id: str) -> str:
    return Order.objects.get(platform_order_id=platform_order_id).customer_email


def test_a_captured_customer_redaction_posted_again_later_erases_nothing_new(shop):
    # given: Ada's erasure request, carried out; months later Ada orders again
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    body, signature = _captured(shopify.CUSTOMER_REDACT, "customers/redact")
    assert _post(body, signature, topic="customers/redact", event_id="evt-redact")["detail"] == "for_a_person"
    retention_run()
    tea_house_deliver("orders/create", shopify.order(id=42, name="#2001"), "evt-create-2")
    # when: the captured request is posted again under a fresh event id
    replayed = _post(body, signature, topic="customers/redact")
    retention_run()
    # then: a duplicate of the first; her new order keeps its data and its confirmation goes
    assert replayed["detail"] == "duplicate"
    assert _email_of("42") == "ada@example.com"
    assert Notification.objects.get(order__platform_order_id="42").status == "pending"
    assert PlatformDelivery.objects.filter(topic="customers/redact").count() == 1
    assert Erasure.objects.count() == 1


@pytest.mark.parametrize("replayed_as", ["shop/redact", "customers/redact"])
def test_a_captured_order_posted_again_under_a_privacy_topic_is_a_duplicate(shop, replayed_as):
    # given: an order delivered, and the shop quiet since
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop)
    body, signature = _captured(shopify.ORDER, "orders/create")
    # when: its bytes are posted again as a privacy request, under a fresh event id
    replayed = _post(body, signature, topic=replayed_as)
    retention_run()
    # then: a copy of the order's delivery, which stores nothing and erases nothing
    assert replayed["detail"] == "duplicate"
    assert PlatformDelivery.objects.get().topic == "orders/create"
    assert _email_of(str(shopify.ORDER_ID)) == "ada@example.com"
    assert not Erasure.objects.exists()


def test_a_captured_shop_redaction_posted_again_while_the_shop_is_active_erases_nothing(shop):
    # given: the shop left the app, and its erasure request was carried out
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop)
    body, signature = _captured(shopify.SHOP_REDACT, "shop/redact")
    assert _post(body, signature, topic="shop/redact", event_id="evt-shop-redact")["detail"] == "for_a_person"
    retention_run()
    assert _email_of(str(shopify.ORDER_ID)) == ""
    # and it came back: a new customer's order is delivered
    tea_house_deliver(
        "orders/create", shopify.order(id=42, name="#2001", email="grace@example.com"), "evt-back"
    )
    # when: the captured request is posted again under a fresh event id
    replayed = _post(body, signature, topic="shop/redact")
    retention_run()
    # then: kept for a person, with why; nothing more is erased
    assert replayed["detail"] == "could_not_use"
    reason = PlatformDelivery.objects.get(pk=replayed["delivery"]).reason
    assert "Run the selected deliveries again" in reason
    assert _email_of("42") == "grace@example.com"
    assert Notification.objects.get(order__platform_order_id="42").status == "pending"
    assert Erasure.objects.count() == 1


def test_a_shop_redaction_while_the_shop_still_delivers_waits_until_it_has_been_quiet(shop):
    # given: the shop's last delivery came two hours ago
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop, timedelta(hours=2))
    # when: a shop/redact comes
    answer = tea_house_deliver("shop/redact", shopify.SHOP_REDACT, "evt-shop-redact")
    retention_run()
    # then: kept as "could not use", saying when the shop last delivered and what to do; nothing erased
    assert answer == "could_not_use"
    request = PlatformDelivery.objects.get(topic="shop/redact")
    last = PlatformDelivery.objects.get(topic="orders/create").received_at
    assert f"{last:%Y-%m-%d %H:%M} UTC" in request.reason
    assert f"quiet for {hours(SHOP_REDACT_QUIET)}" in request.reason
    assert "Run the selected deliveries again" in request.reason
    assert _email_of(str(shopify.ORDER_ID)) == "ada@example.com"
    # and when: run again while the shop's last delivery is still that recent, it stays kept
    again = delivery_rerun(request.id, actor=None, actor_name="test")
    assert again is not None
    assert again.outcome == "could_not_use"
    # and when: run again once the shop has been quiet that long, it is carried out
    PlatformDelivery.objects.filter(topic="orders/create").update(received_at=last - SHOP_REDACT_QUIET)
    again = delivery_rerun(request.id, actor=None, actor_name="test")
    assert again is not None
    assert again.outcome == "for_a_person"
    retention_run()
    assert _email_of(str(shopify.ORDER_ID)) == ""


def test_the_second_shop_redaction_of_a_shop_that_came_back_and_left_again_is_carried_out_once(shop):
    # given: the shop left the app, and its erasure request was carried out
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop)
    body, signature = _captured(shopify.SHOP_REDACT, "shop/redact")
    assert (
        _post(body, signature, topic="shop/redact", event_id="evt-first-redact")["detail"] == "for_a_person"
    )
    retention_run()
    # and it came back, took a new customer's order, and left again
    _shop_went_quiet(shop, timedelta(days=10))
    tea_house_deliver(
        "orders/create", shopify.order(id=42, name="#2001", email="grace@example.com"), "evt-back"
    )
    back = PlatformDelivery.objects.get(topic="orders/create", platform_order_id="42")
    _shop_went_quiet(shop)
    # when: Shopify's second request, byte for byte the first, under its own event id; its retry;
    # and a copy of it posted later under a fresh event id
    second = _post(body, signature, topic="shop/redact", event_id="evt-second-redact")
    retry = _post(body, signature, topic="shop/redact", event_id="evt-second-redact")
    replayed = _post(body, signature, topic="shop/redact")
    retention_run()
    # then: the second is carried out, once; the new customer's order is erased
    assert (second["detail"], retry["detail"], replayed["detail"]) == (
        "for_a_person",
        "duplicate",
        "duplicate",
    )
    assert retry["delivery"] == replayed["delivery"] == second["delivery"]
    assert PlatformDelivery.objects.get(pk=second["delivery"]).outcome == "used"
    assert PlatformDelivery.objects.filter(topic="shop/redact").count() == 2
    assert PlatformDelivery.objects.get(pk=second["delivery"]).event_key.endswith(f":after:{back.id}")
    assert _email_of("42") == ""
    assert Erasure.objects.count() == 2


def test_a_customer_s_request_just_before_is_no_sign_that_the_shop_is_active(shop):
    # given: the shop left the app; Shopify sends its privacy requests all the same (they are the
    # app's, not the shop's subscriptions): a customer's erasure request came an hour ago
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop)
    assert tea_house_deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact") == "for_a_person"
    # when
    answer = tea_house_deliver("shop/redact", shopify.SHOP_REDACT, "evt-shop-redact")
    # then: the shop's request is carried out
    assert answer == "for_a_person"
    retention_run()
    assert PlatformDelivery.objects.get(topic="shop/redact").outcome == "used"


def test_a_copy_kept_while_the_shop_was_active_does_not_swallow_the_genuine_request(shop):
    # given: the shop left once, and its request was carried out
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_went_quiet(shop)
    body, signature = _captured(shopify.SHOP_REDACT, "shop/redact")
    assert _post(body, signature, topic="shop/redact", event_id="evt-first")["detail"] == "for_a_person"
    retention_run()
    # the shop came back and took Grace's order; a copy of the first request is posted meanwhile
    _shop_went_quiet(shop, timedelta(days=10))
    grace = shopify.order(id=42, name="#2001", email="grace@example.com")
    tea_house_deliver("orders/create", grace, "evt-back")
    copy = _post(body, signature, topic="shop/redact")
    assert copy["detail"] == "could_not_use"
    # when: the shop leaves again, and Shopify's genuine second request comes, byte for byte the copy
    _shop_went_quiet(shop)
    genuine = _post(body, signature, topic="shop/redact", event_id="evt-second")
    retention_run()
    # then: the kept copy is checked again, now the shop is quiet, and carried out
    assert genuine["delivery"] == copy["delivery"]
    assert genuine["detail"] == "for_a_person"
    assert _email_of("42") == ""
    assert PlatformDelivery.objects.get(pk=copy["delivery"]).runs == 2
