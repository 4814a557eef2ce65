"""The drill's platform mode: the orders come from a connected Shopify shop's webhooks instead of
the API, as Shopify sends them, at least once. Each delivery goes 2 to 4 times under one
X-Shopify-Event-Id, its copies spread over seconds, so that an order's deliveries overtake each
other: a parcel before its order, a refund before its parcel, a cancellation before the order's
creation. A copy that gets no answer or a 5xx (a killed web worker, a dropped database
connection) is posted again, as Shopify retries, until its deadline.

The orders: one to three lines, paid; 30 % shipped, one parcel per line, half of those with the
first line refunded; 10 % cancelled (never shipped); of the rest, 30 % edited in Shopify's admin
(a product added, or the last of three removed: its orders/edited, then its orders/updated with
the order as edited, which may overtake the order's creation like any delivery). Each parcel's
carrier sends its news (out for delivery, for some a failed attempt and out for delivery again,
then delivered), each piece 2 to 4 times and in any order like every delivery. What was sent
for each order is kept (PlatformPlan), for the verdict per order (platform_verdict.py)."""

import heapq
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import requests

from tools.drill.load import GIVE_UP_AFTER_SECONDS, LoadResult
from tools.platform_payloads import (
    PRODUCTS,
    shopify_headers,
    shopify_order,
    shopify_order_edited,
    shopify_parcel,
    shopify_parcel_news,
    shopify_refund,
)

SHOP = {
    "slug": "drill-shopify",
    "platform": "shopify",
    "domain": "drill-tea.myshopify.com",
    "name": "Drill Tea",
}
COPIES = (2, 4)  # each delivery posted this many times, at least and at most
SPREAD_SECONDS = 4.0  # an order's deliveries and their copies, within this long of its turn
SHIPPED_SHARE, REFUNDED_SHARE, CANCELLED_SHARE = 0.3, 0.5, 0.1
EDITED_SHARE = 0.3  # of the orders neither cancelled nor shipped: one edit in Shopify's admin
ATTEMPTED_SHARE = 0.3  # of the parcels: a failed attempt before the delivery
# A parcel's news as its carrier gives it, hours after the parcel left.
JOURNEY = ("out_for_delivery", "delivered")
JOURNEY_WITH_AN_ATTEMPT = ("out_for_delivery", "attempted_delivery", "out_for_delivery", "delivered")


def drill_shop_secret() -> str:
    # Made here, not written: a tracked file holds no literal secret.
    return uuid.uuid5(uuid.NAMESPACE_URL, "drill-shopify webhook").hex


@dataclass
class PlatformPlan:
    """What the shop sent about one order."""

    email: str
    lines: dict[str, int] = field(default_factory=dict)  # SKU -> quantity, as the order is at the end
    edited: bool = False  # an edit sent (orders/edited, then orders/updated with the order as edited)
    parcels: int = 0
    refunds: int = 0
    cancelled: bool = False
    parcel_news: int = 0  # pieces of news sent, over all its parcels


@dataclass
class PlatformLoad(LoadResult):
    plans: dict[str, PlatformPlan] = field(default_factory=dict)  # platform order id -> what was sent
    deliveries: int = 0  # events sent
    edits: int = 0  # orders edited in the shop's admin (each an orders/edited and an orders/updated)
    copies: int = 0  # posts, each copy of each event
    answers: dict[str, int] = field(default_factory=dict)  # the intake's word for each answered post


@dataclass(order=True)
class _Post:
    due: float
    sequence: int
    topic: str = field(compare=False)
    body: bytes = field(compare=False)
    event_id: str = field(compare=False)
    order_id: str = field(compare=False)


class PlatformStream:
    def __init__(
        self,
        base_url: str,
        *,
        orders: int,
        rate: float,
        seed: int,
        give_up_after: float = GIVE_UP_AFTER_SECONDS,
    ):
        self.url = f"{base_url}/shops/{SHOP['slug']}/webhook"
        self.secret = drill_shop_secret()
        self.orders, self.rate, self.give_up_after = orders, rate, give_up_after
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.load = PlatformLoad(orders_asked=orders)
        self._queue: list[_Post] = []
        self._sequence = 0
        self._answered: set[str] = set()  # event ids answered 200 at least once
        self._events_of: dict[str, list[str]] = {}  # platform order id -> its event ids

    def run(self) -> PlatformLoad:
        started = time.monotonic()
        for number in range(self.orders):
            self._plan(number, started + number / self.rate)
            self._post_due(until=started + (number + 1) / self.rate)
        self._post_due(until=float("inf"))
        for order_id, events in self._events_of.items():
            if all(event in self._answered for event in events):
                self.load.accepted[order_id] = self.load.plans[order_id].email
            else:
                self.load.given_up_requests.append(f"order {order_id}: a delivery never answered 200")
        return self.load

    def _plan(self, number: int, turn: float) -> None:
        order_id = 7_200_000_000 + number
        email = f"shopper{number}@drill.example"
        lines = self.rng.sample(PRODUCTS, self.rng.randint(1, 3))
        order = shopify_order(order_id, number, lines, address=email)
        plan = self.load.plans[str(order_id)] = PlatformPlan(
            email=email, lines={sku: 1 for sku, _, _ in lines}
        )
        self._send_later(turn, "orders/create", order, order_id)
        roll = self.rng.random()
        if roll < CANCELLED_SHARE:
            later = (datetime.fromisoformat(order["updated_at"]) + timedelta(seconds=1)).isoformat()
            cancelled = order | {"cancelled_at": later, "updated_at": later, "cancel_reason": "customer"}
            self._send_later(turn, "orders/cancelled", cancelled, order_id)
            plan.cancelled = True
            self.load.cancelled.add(str(order_id))
        elif roll < CANCELLED_SHARE + SHIPPED_SHARE:
            for index, line in enumerate(lines, 1):
                self._send_later(
                    turn, "fulfillments/create", shopify_parcel(order_id, index, [line]), order_id
                )
            plan.parcels = len(lines)
            for index in range(1, len(lines) + 1):
                plan.parcel_news += self._journey(turn, order_id, index)
            if self.rng.random() < REFUNDED_SHARE:
                self._send_later(turn, "refunds/create", shopify_refund(order_id, lines[0]), order_id)
                plan.refunds = 1
        elif self.rng.random() < EDITED_SHARE:
            edited, now = shopify_order_edited(order, lines)
            self._send_later(turn, "orders/edited", {"order_edit": {"order_id": order_id}}, order_id)
            self._send_later(turn, "orders/updated", edited, order_id)
            plan.lines, plan.edited = {sku: 1 for sku, _, _ in now}, True
            self.load.edits += 1
        self.load.paid.add(str(order_id))

    def _journey(self, turn: float, order_id: int, index: int) -> int:
        """The parcel's news, each piece its own event; how many pieces."""
        journey = JOURNEY_WITH_AN_ATTEMPT if self.rng.random() < ATTEMPTED_SHARE else JOURNEY
        left = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=6)
        for number, status in enumerate(journey, 1):
            news = shopify_parcel_news(order_id, index, number, status, left + timedelta(hours=number))
            self._send_later(turn, "fulfillment_events/create", news, order_id)
        return len(journey)

    def _send_later(self, turn: float, topic: str, payload: dict, order_id: int) -> None:
        """Every copy of one event, each at its own moment within the spread."""
        event_id, body = str(uuid.uuid4()), json.dumps(payload).encode()
        self._events_of.setdefault(str(order_id), []).append(event_id)
        self.load.deliveries += 1
        for _ in range(self.rng.randint(*COPIES)):
            self._sequence += 1
            due = turn + self.rng.uniform(0, SPREAD_SECONDS)
            heapq.heappush(self._queue, _Post(due, self._sequence, topic, body, event_id, str(order_id)))

    def _post_due(self, *, until: float) -> None:
        """Each copy due before `until` at its moment, then wait for `until` (the next order's
        turn); with `until` infinite, every copy left."""
        while self._queue and self._queue[0].due <= until:
            post = heapq.heappop(self._queue)
            time.sleep(max(0.0, post.due - time.monotonic()))
            self._post(post)
        if until != float("inf"):
            time.sleep(max(0.0, until - time.monotonic()))

    def _post(self, post: _Post) -> None:
        headers = shopify_headers(
            post.body, secret=self.secret, domain=SHOP["domain"], topic=post.topic, event_id=post.event_id
        )
        deadline = time.monotonic() + self.give_up_after
        self.load.copies += 1
        while True:
            try:
                response = self.session.post(self.url, data=post.body, headers=headers, timeout=15)
            except requests.RequestException:
                response = None
            if response is not None and response.status_code < 500:
                if response.status_code == 200:
                    self._answered.add(post.event_id)
                    word = str(response.json().get("detail", ""))
                    self.load.answers[word] = self.load.answers.get(word, 0) + 1
                else:
                    self.load.given_up_requests.append(
                        f"{post.topic} {post.order_id}: {response.status_code}"
                    )
                return
            if time.monotonic() > deadline:
                return  # this copy is given up; the event counts as given up only if no copy got through
            self.load.retried_requests += 1
            time.sleep(0.5)
