"""`manage.py shop_backfill`: a WooCommerce store's orders modified since a moment, fetched
from its REST API (a store played here over real HTTP, with its Basic authentication and its
pages), received as its webhooks' deliveries would be; run again, it changes nothing."""

import base64
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import CommandError, call_command

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Order
from shops.models import Shop
from tests import woocommerce_payloads as woo

pytestmark = pytest.mark.django_db
# The played store's key, made here: a tracked file holds no literal secret (tests/unit/secret_scan.py).
KEY = "ck_" + hashlib.sha256(b"backfill key").hexdigest()[:24]
CONSUMER = "cs_" + hashlib.sha256(b"backfill consumer").hexdigest()[:24]


@pytest.fixture
def store():
    """A WooCommerce store's REST API: one order a page, those modified after `modified_after`."""
    orders = [woo.ORDER, woo.order(id=728, number="728", date_modified_gmt="2026-11-30T11:00:00")]
    asked: list[dict] = []

    class Store(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            query = {name: values[0] for name, values in parse_qs(urlsplit(self.path).query).items()}
            asked.append(query)
            expected = "Basic " + base64.b64encode(f"{KEY}:{CONSUMER}".encode()).decode()
            if self.headers.get("Authorization") != expected:
                self._send(401, {"code": "woocommerce_rest_cannot_view"})
                return
            after = query["modified_after"][:19]
            matching = [order for order in orders if order["date_modified_gmt"] > after]
            page = int(query["page"])
            self._send(200, matching[page - 1 : page], pages=len(matching))

        def _send(self, status: int, document: object, pages: int = 1) -> None:
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-WP-TotalPages", str(pages))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Store)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": f"http://127.0.0.1:{server.server_port}", "asked": asked}
    server.shutdown()
    server.server_close()


@pytest.fixture
def shop(store) -> Shop:
    return Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform="woocommerce",
        domain=store["url"],
        webhook_secret=woo.WEBHOOK_SECRET,
        api_key=KEY,
        api_secret=CONSUMER,
    )


def test_the_orders_the_webhooks_missed_become_their_emails_once_however_often_it_runs(shop, store, capsys):
    # when
    call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30T00:00Z")
    first = capsys.readouterr()
    call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30T00:00Z")
    second = capsys.readouterr()
    # then
    assert "2 orders of Tea House modified since 2026-11-30T00:00:00+00:00: 2 used." in first.out
    assert "page 1 of 2" in first.err
    assert "page 2 of 2" in first.err
    assert "2 duplicate." in second.out
    assert sorted(str(order.platform_order_id) for order in Order.objects.all()) == ["727", "728"]
    assert Notification.objects.filter(kind="order_confirmation").count() == 2
    assert store["asked"][0] | {"page": "1"} == {
        "modified_after": "2026-11-30T00:00:00+00:00",
        "dates_are_gmt": "true",
        "orderby": "modified",
        "order": "asc",
        "per_page": "100",
        "page": "1",
    }


def test_only_orders_modified_after_the_moment_are_asked_for(shop):
    call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30T10:00:00")
    assert list(Order.objects.values_list("platform_order_id", flat=True)) == ["728"]


def test_a_key_the_store_refuses_is_a_clear_error(shop):
    shop.api_secret = CONSUMER[::-1]
    shop.save()
    with pytest.raises(CommandError, match=r"The store refused the shop's REST API key \(401\)"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")
    assert not Order.objects.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["no-such-shop", "--since", "2026-11-30"],
            re.escape("No connected shop is called 'no-such-shop' (known: tea-house-woo)"),
        ),
        (["tea-house-woo", "--since", "last tuesday"], "--since takes an ISO 8601 moment"),
    ],
)
def test_usage_mistakes_are_errors_in_words(shop, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("shop_backfill", *arguments)


def test_a_shop_without_a_key_or_of_another_platform_is_told_why(shop):
    shop.api_key = ""
    shop.save()
    with pytest.raises(CommandError, match="has no REST API key"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")
    shop.platform = "shopify"
    shop.save()
    with pytest.raises(CommandError, match="is a Shopify shop"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")


def test_an_order_both_delivered_and_backfilled_is_applied_once(shop, client):
    # given: one order delivered by its webhook before the backfill, the other after it, each
    # with the bytes the store's REST API answers (the backfill's keys are its own)
    def deliver(order: dict) -> str:
        body = woo.body_of(order)
        headers = woo.signed_headers(body, topic="order.updated", delivery_id="d-1", source=shop.domain)
        response = client.post(
            "/shops/tea-house-woo/webhook", body, content_type="application/json", **headers
        )
        return str(response.json()["detail"])

    assert deliver(woo.ORDER) == "used"
    call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30T00:00Z")
    # when
    after = deliver(woo.order(id=728, number="728", date_modified_gmt="2026-11-30T11:00:00"))
    # then: each order once, with one confirmation; what came twice changed nothing
    assert after == "used"
    assert sorted(str(order.platform_order_id) for order in Order.objects.all()) == ["727", "728"]
    assert Notification.objects.filter(kind="order_confirmation").count() == 2
    assert set(
        PlatformDelivery.objects.exclude(reason__startswith="order created").values_list("reason", flat=True)
    ) == {"nothing new: everything it says was applied before"}
