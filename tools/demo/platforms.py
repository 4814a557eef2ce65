"""The demo's shops on platforms: a Shopify shop and a WooCommerce shop, connected here, send
their orders' webhooks to /shops/<slug>/webhook as the platforms do, signed and at least once,
while the API's orders come in. A quarter of the deliveries come twice (a platform retrying one
whose answer it did not see), some Shopify parcels come before their order (they wait for it),
some older WooCommerce updates after newer ones (they change nothing), some orders ship in two
parcels and get a partial refund. Every delivery must be answered 200: anything else is counted
as refused, with its answer. (The payloads: tools/platform_payloads.py.)"""

import hashlib
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import requests

from intake import woocommerce
from tools.demo.stack import manage
from tools.platform_payloads import (
    PRODUCTS,
    Line,
    naive_utc,
    shopify_headers,
    shopify_order,
    shopify_parcel,
    shopify_parcel_news,
    shopify_refund,
    woocommerce_order,
)

TWICE_SHARE = 0.25  # of the deliveries posted twice, as a platform retrying one would
SHOPIFY = {
    "slug": "demo-shopify",
    "platform": "shopify",
    "domain": "demo-tea.myshopify.com",
    "name": "Demo Tea",
}
WOOCOMMERCE = {
    "slug": "demo-woo",
    "platform": "woocommerce",
    "domain": "https://demo-woo.example/",
    "name": "Demo Woo Tea",
}


def _secret(slug: str) -> str:
    # Made here, not written: a tracked file holds no literal secret.
    return hashlib.sha256(f"the demo's {slug} webhook".encode()).hexdigest()[:32]


def platform_shops_connect() -> None:
    """The two shops as rows (created, or brought back to these values), as a person would add
    them in the admin."""
    for shop in (SHOPIFY, WOOCOMMERCE):
        values = {**shop, "webhook_secret": _secret(shop["slug"]), "active": True}
        manage(
            "shell",
            "--no-imports",
            "-c",
            "from shops.models import Shop; "
            f"values = {values!r}; Shop.objects.update_or_create(slug=values.pop('slug'), defaults=values)",
        )


@dataclass
class PlatformTally:
    deliveries: int = 0  # posted, retries included
    retries: int = 0  # posted a second time, as a platform retries
    early_parcels: int = 0  # a parcel's delivery posted before its order's
    late_updates: int = 0  # an older state of the order delivered after a newer one
    orders: list[str] = field(default_factory=list)  # "<shop>:<platform order id>"
    parcels: int = 0
    parcel_news: int = 0  # a carrier's news of a parcel (Shopify's fulfilment events)
    refunds: int = 0
    answers: dict[str, int] = field(default_factory=dict)  # the intake's word for each delivery
    refused: list[str] = field(default_factory=list)  # any answer but 200, with its body


class PlatformStream:
    """`tick(number)`: one platform order's deliveries, the shops taking turns."""

    def __init__(self, web: str, *, seed: int):
        self.web = web
        self.rng = random.Random(seed + 1)
        self.session = requests.Session()
        self.tally = PlatformTally()

    def tick(self, number: int) -> None:
        if number % 2 == 0:
            self._shopify_order(number)
        else:
            self._woocommerce_order(number)

    def _shopify_order(self, number: int) -> None:
        order_id = 7_100_000_000 + number
        lines = self._lines()
        order = shopify_order(order_id, number, lines, address=f"shopify-{number}@example.com")
        parcels = [shopify_parcel(order_id, index, [line]) for index, line in enumerate(lines, 1)]
        ships = len(lines) > 1 and self.rng.random() < 0.5
        if ships and self.rng.random() < 0.3:  # the parcel's delivery overtakes the order's
            self._shopify("fulfillments/create", parcels[0])
            self.tally.early_parcels += 1
            parcels = parcels[1:]
        self._shopify("orders/create", order)
        self.tally.orders.append(f"{SHOPIFY['slug']}:{order_id}")
        if not ships:
            return
        for parcel in parcels:
            self._shopify("fulfillments/create", parcel)
        self.tally.parcels += len(lines)
        left = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=8)
        for number, status in enumerate(("in_transit", "out_for_delivery", "delivered"), 1):
            self._shopify(
                "fulfillment_events/create",
                shopify_parcel_news(order_id, 1, number, status, left + timedelta(hours=number * 2)),
            )
            self.tally.parcel_news += 1
        if self.rng.random() < 0.5:
            self._shopify("refunds/create", shopify_refund(order_id, lines[0]))
            self.tally.refunds += 1

    def _woocommerce_order(self, number: int) -> None:
        order_id = 9_000 + number
        lines = self._lines()
        created = datetime.now(UTC).replace(microsecond=0)
        order = woocommerce_order(order_id, lines, address=f"woo-{number}@example.com", at=created)
        self._woocommerce("order.created", order)
        self.tally.orders.append(f"{WOOCOMMERCE['slug']}:{order_id}")
        if self.rng.random() < 0.4:  # completed: it left, in one parcel; for some, a refund after
            completed = order | {"status": "completed", "date_modified_gmt": naive_utc(created, later=2)}
            self._woocommerce("order.updated", completed)
            self.tally.parcels += 1
            if self.rng.random() < 0.5:
                refund = {"id": order_id * 10 + 1, "reason": "Returned", "total": f"-{lines[0][2] / 100:.2f}"}
                refunded = completed | {"refunds": [refund], "date_modified_gmt": naive_utc(created, later=3)}
                self._woocommerce("order.updated", refunded)
                self.tally.refunds += 1
            if self.rng.random() < 0.3:  # an older update delivered late: it changes nothing
                # (a state of its own: the same bytes as the creation's would be a duplicate)
                noted = order | {
                    "customer_note": "Please ring twice",
                    "date_modified_gmt": naive_utc(created, later=1),
                }
                self._woocommerce("order.updated", noted)
                self.tally.late_updates += 1

    def _lines(self) -> list[Line]:
        return self.rng.sample(PRODUCTS, self.rng.randint(1, 3))

    def _shopify(self, topic: str, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        headers = shopify_headers(
            body,
            secret=_secret(SHOPIFY["slug"]),
            domain=SHOPIFY["domain"],
            topic=topic,
            event_id=str(uuid.uuid4()),  # the same on a retry of this delivery
        )
        self._post(SHOPIFY["slug"], body, headers)

    def _woocommerce(self, topic: str, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        headers = {
            "Content-Type": "application/json",
            "X-WC-Webhook-Signature": woocommerce.SIGNING.signature_of(body, _secret(WOOCOMMERCE["slug"])),
            "X-WC-Webhook-Source": WOOCOMMERCE["domain"],
            "X-WC-Webhook-Topic": topic,
            "X-WC-Webhook-ID": "1",
            "X-WC-Webhook-Delivery-ID": str(self.rng.randint(10**6, 10**7)),
        }
        self._post(WOOCOMMERCE["slug"], body, headers)

    def _post(self, slug: str, body: bytes, headers: dict[str, str]) -> None:
        copies = 2 if self.rng.random() < TWICE_SHARE else 1
        url = f"{self.web}/shops/{slug}/webhook"
        for _ in range(copies):
            response = self.session.post(url, data=body, headers=headers, timeout=10)
            self.tally.deliveries += 1
            if response.status_code != 200:
                self.tally.refused.append(f"{slug}: {response.status_code} {response.text[:160]}")
                continue
            word = response.json().get("detail", "")
            self.tally.answers[word] = self.tally.answers.get(word, 0) + 1
        self.tally.retries += copies - 1


def platform_check(tally: PlatformTally) -> list[str]:
    """What went wrong with the platforms' deliveries, in words (nothing: an empty list): each
    answered 200, each platform order one order of ours, no delivery left waiting or unusable,
    each retry answered as a duplicate."""
    stored = json.loads(
        manage(
            "shell",
            "--no-imports",
            "-c",
            "import json; from django.db.models import Count; from intake.models import PlatformDelivery; "
            "from orders.models import Order; "
            f"slugs = {[SHOPIFY['slug'], WOOCOMMERCE['slug']]!r}; "
            "print(json.dumps({'orders': Order.objects.filter(shop__slug__in=slugs).count(), "
            "'outcomes': dict(PlatformDelivery.objects.filter(shop__slug__in=slugs)"
            ".values_list('outcome').annotate(n=Count('id')))}))",
        )
    )
    problems = [f"refused: {answer}" for answer in tally.refused[:5]]
    if stored["orders"] != len(tally.orders):
        problems.append(f"{len(tally.orders)} platform orders sent, {stored['orders']} orders stored")
    for outcome in ("waiting", "could_not_use"):
        if stored["outcomes"].get(outcome):
            problems.append(f"{stored['outcomes'][outcome]} deliveries {outcome.replace('_', ' ')}")
    if tally.answers.get("duplicate", 0) < tally.retries:
        duplicates = tally.answers.get("duplicate", 0)
        problems.append(f"{tally.retries} retries, {duplicates} answered as duplicates")
    return problems
