"""A steady stream of orders through the real API, with pays, cancels, parcels and refunds,
written the way a careful client would: most orders are a shop's, with one to three lines
(every fourth in the short body), and some of those ship in two parcels, refund the first
(paying the order first if it is not paid: only money that came in can go back) and pass on
the carrier's news of the first (out for delivery, then delivered); every order
carries an Idempotency-Key (a parcel and a refund their shop's ids), a request that fails for
any reason (a killed web worker, a dropped database connection) is retried with it, and a 429
is waited out for as long as its Retry-After says, then retried with the same key. Each
request has a deadline; past it the client gives up, and a request given up is work not
done."""

import math
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import requests

GIVE_UP_AFTER_SECONDS = 120.0

# Each order is one POST, at most one edit, one pay or cancel, two parcels, a refund and two
# pieces of a parcel's news.
REQUESTS_PER_ORDER_MAX = 8
SHORT_BODY_EVERY = 4  # every fourth order comes in the short body, the others are a shop's
LINES_PER_ORDER = (1, 3)  # a shop's order: at least and at most this many lines
# What happens to an order once placed: cancelled at once (usually before its confirmation),
# cancelled a few seconds later, or paid; the rest stay as they are.
CANCELLED_AT_ONCE_SHARE = 0.10
CANCELLED_LATER_SHARE = 0.10
PAID_SHARE = 0.25
SHIPPED_SHARE = 0.3  # of the orders neither cancelled: shipped in parcels
REFUNDED_SHARE = 0.5  # of the shipped ones: the first parcel's lines refunded
DELIVERED_SHARE = 0.5  # of the shipped ones: the first parcel delivered, after out for delivery
EDITED_SHARE = 0.2  # of the shop's orders not cancelled at once: one more of the first line, at once
# Twice that again, because a window can count more than the nominal stream: retries after a
# killed web worker or a dropped connection count too, and after a stall (a broker restart) the
# stream catches up in a burst that lands the stalled seconds' requests in the next window.
THROTTLE_HEADROOM = 2


def api_throttle_rate_for(orders_per_second: float) -> str:
    """An API_THROTTLE_RATE for one client offering this many orders per second, with headroom.

    The throttle stays on (one upsert per request, dropped connections included), so the drill
    runs the product as deployed; only the limit is sized for the drill's one busy token. With
    the product's default (600/min), a 25/s stream placed about one order in three (issue 19)."""
    per_minute = orders_per_second * REQUESTS_PER_ORDER_MAX * THROTTLE_HEADROOM * 60
    return f"{math.ceil(per_minute)}/min"


@dataclass
class LoadResult:
    orders_asked: int = 0
    accepted: dict[str, str] = field(default_factory=dict)  # order id -> customer email
    paid: set[str] = field(default_factory=set)
    cancelled: set[str] = field(default_factory=set)
    shipments: dict[str, str] = field(default_factory=dict)  # shipment id -> order id
    refunds: dict[str, str] = field(default_factory=dict)  # refund id -> order id
    parcel_news: int = 0  # pieces of a parcel's news the API took
    edits: int = 0  # changes of what an order holds the API took
    given_up_requests: list[str] = field(default_factory=list)  # should stay empty
    retried_requests: int = 0  # after a 5xx or no answer
    throttled_requests: int = 0  # 429s waited out and retried
    # Each answer that was retried (a 5xx or none), when it came (time.time()) and what it was:
    # "503", "500", … or "no answer"; the database drill counts them around each failover.
    retried_answers: list[tuple[float, str]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """The load did all its work at the rate it was asked: every order placed, no request
        given up, and none held back by the API's throttle (which the drill sizes to fit its
        rate: a throttled stream offered less than the drill claims)."""
        return (
            len(self.accepted) == self.orders_asked
            and not self.given_up_requests
            and not self.throttled_requests
        )

    def shortfall(self) -> str:
        first = f" (first: {self.given_up_requests[0]})" if self.given_up_requests else ""
        return (
            f"the load placed {len(self.accepted)} of {self.orders_asked} orders, gave up on "
            f"{len(self.given_up_requests)} requests{first} and was throttled {self.throttled_requests} times"
        )


def retry_after_seconds(response: requests.Response) -> float:
    """Retry-After as seconds from now: a number of seconds or an HTTP date (RFC 9110).
    Absent or unreadable: one second, so a careful client still backs off."""
    value = response.headers.get("Retry-After", "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 1.0
    if when.tzinfo is None:  # an HTTP date is always GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class OrderStream:
    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        orders: int,
        rate: float,
        seed: int,
        give_up_after: float = GIVE_UP_AFTER_SECONDS,
        shipped_share: float = SHIPPED_SHARE,
    ):
        self.base_url = base_url
        self.shipped_share = shipped_share
        self.orders = orders
        self.rate = rate
        self.give_up_after = give_up_after
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.result = LoadResult(orders_asked=orders)
        self._later_cancels: list[tuple[float, str]] = []

    def run(self) -> LoadResult:
        started = time.monotonic()
        for number in range(self.orders):
            self._place(number)
            self._cancel_due()
            time.sleep(max(0.0, started + (number + 1) / self.rate - time.monotonic()))
        for _, order_id in self._later_cancels:
            self._change(order_id, "cancel")
        return self.result

    def _place(self, number: int) -> None:
        email = f"customer{number}@drill.example"
        short = number % SHORT_BODY_EVERY == SHORT_BODY_EVERY - 1
        body = self._short_body(email) if short else self._shop_body(number, email)
        response = self._request(
            "post", "/api/orders/", json=body, headers={"Idempotency-Key": f"drill-{number}"}
        )
        if response is None:
            return
        order_id = response.json()["id"]
        self.result.accepted[order_id] = email
        roll = self.rng.random()
        cancelled = CANCELLED_AT_ONCE_SHARE + CANCELLED_LATER_SHARE
        if roll >= CANCELLED_AT_ONCE_SHARE and "lines" in body and self.rng.random() < EDITED_SHARE:
            self._edit(order_id, body)
        if roll < CANCELLED_AT_ONCE_SHARE:
            self._change(order_id, "cancel")  # right away: usually before the confirmation
        elif roll < cancelled:
            self._later_cancels.append((time.monotonic() + self.rng.uniform(0.5, 5), order_id))
        elif roll < cancelled + PAID_SHARE:
            self._change(order_id, "pay")
        if roll >= cancelled and "lines" in body and self.rng.random() < self.shipped_share:
            self._ship_and_refund(order_id, body["lines"])

    def _edit(self, order_id: str, body: dict[str, Any]) -> None:
        """One more of the first line (its email usually still waits for the confirmation);
        `body` becomes what the order holds now, for its parcels."""
        first = body["lines"][0]
        first["quantity"] += 1
        first["total"] = first["quantity"] * first["unit_price"]
        body["total"] += first["unit_price"]
        change = {"lines": body["lines"], "total": body["total"]}
        if self._request("patch", f"/api/orders/{order_id}/", json=change) is not None:
            self.result.edits += 1

    def _shop_body(self, number: int, email: str) -> dict[str, Any]:
        lines: list[dict[str, Any]] = []
        for index in range(self.rng.randint(*LINES_PER_ORDER)):
            quantity, unit_price = self.rng.randint(1, 3), self.rng.randint(100, 20000)
            lines.append(
                {
                    "sku": f"SKU-{index + 1}",
                    "name": f"Article {index + 1}",
                    "quantity": quantity,
                    "unit_price": unit_price,
                    "total": quantity * unit_price,
                    "tax_rate": "0.19",
                }
            )
        total = sum(line["total"] for line in lines) + 490
        return {
            "number": f"DRILL-{number}",
            "customer_email": email,
            "customer_name": f"Customer {number}",
            "currency": "EUR",
            "lines": lines,
            "shipping_address": {
                "name": f"Customer {number}",
                "line1": "Hauptstrasse 1",
                "city": "Berlin",
                "country": "DE",
            },
            "shipping": {"method": "DHL Paket", "price": 490},
            "total": total,
        }

    def _short_body(self, email: str) -> dict[str, Any]:
        return {
            "customer_email": email,
            "amount": f"{self.rng.randint(100, 99999) / 100:.2f}",
            "currency": "EUR",
        }

    def _ship_and_refund(self, order_id: str, lines: list[dict[str, Any]]) -> None:
        """The first line in one parcel and the rest in a second; for some, the first parcel's
        lines refunded (a return)."""
        first, *rest = lines
        parcels = [("P1", [first]), ("P2", rest)] if rest else [("P1", [first])]
        for parcel_id, parcel_lines in parcels:
            body = {
                "shipment_id": parcel_id,
                "carrier": "DHL",
                "lines": [{"sku": line["sku"], "quantity": line["quantity"]} for line in parcel_lines],
            }
            response = self._request("post", f"/api/orders/{order_id}/shipments/", json=body)
            if response is None:
                return
            self.result.shipments[_ours(response.json()["shipments"], "shipment_id", parcel_id)] = order_id
        if self.rng.random() < REFUNDED_SHARE:
            if order_id not in self.result.paid:
                self._change(order_id, "pay")  # its one pay: the API refunds only a paid order
            body = {
                "refund_id": "R1",
                "amount": first["total"],
                "lines": [{"sku": first["sku"], "quantity": first["quantity"]}],
                "shipment_id": "P1",
            }
            response = self._request("post", f"/api/orders/{order_id}/refunds/", json=body)
            if response is not None:
                self.result.refunds[_ours(response.json()["refunds"], "refund_id", "R1")] = order_id
        self._parcel_news(order_id, "P1")

    def _parcel_news(self, order_id: str, parcel_id: str) -> None:
        """The carrier's news of a parcel, in the order it happened: out for delivery, and for
        half of them delivered a second later (the first email may then find the parcel
        delivered: skipped as old news)."""
        now = datetime.now(UTC)
        journey = [("N1", "out_for_delivery", 0)]
        if self.rng.random() < DELIVERED_SHARE:
            journey.append(("N2", "delivered", 1))
        for event_id, status, later in journey:
            body = {"event_id": event_id, "status": status, "happened_at": _later(now, later)}
            path = f"/api/orders/{order_id}/shipments/{parcel_id}/events/"
            if self._request("post", path, json=body) is None:
                return
            self.result.parcel_news += 1

    def _cancel_due(self) -> None:
        now = time.monotonic()
        due = [order_id for at, order_id in self._later_cancels if at <= now]
        self._later_cancels = [(at, order_id) for at, order_id in self._later_cancels if at > now]
        for order_id in due:
            self._change(order_id, "cancel")

    def _change(self, order_id: str, change: str) -> None:
        if self._request("post", f"/api/orders/{order_id}/{change}/", json={}) is not None:
            (self.result.cancelled if change == "cancel" else self.result.paid).add(order_id)

    def _request(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        """The answer, or None once given up: the same request (its Idempotency-Key included)
        again until it succeeds, it gets a 4xx other than 429 (a bug of this client), or the
        deadline passes."""
        deadline = time.monotonic() + self.give_up_after
        while True:
            response = self._send(method, path, **kwargs)
            if response is not None and response.status_code == 429:
                wait = retry_after_seconds(response)
                if time.monotonic() + wait > deadline:  # it cannot succeed in time: stop now
                    self._gave_up(path, f"429, Retry-After {wait:.0f} s is past the deadline")
                    return None
                self.result.throttled_requests += 1
                time.sleep(wait)
                continue
            if response is not None and response.status_code < 500:
                if response.ok:
                    return response
                self._gave_up(path, f"{response.status_code} {response.text}")
                return None
            if time.monotonic() > deadline:
                self._gave_up(path, "no answer" if response is None else f"{response.status_code}")
                return None
            self.result.retried_requests += 1
            self.result.retried_answers.append(
                (time.time(), "no answer" if response is None else str(response.status_code))
            )
            time.sleep(0.5)

    def _send(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        try:
            return self.session.request(method, self.base_url + path, timeout=15, **kwargs)
        except requests.RequestException:
            return None

    def _gave_up(self, path: str, why: str) -> None:
        self.result.given_up_requests.append(f"{path}: {why[:200]}")
        return None


def _ours(parts: list[dict[str, Any]], field: str, shop_id: str) -> str:
    """Our id of the parcel or refund the shop calls `shop_id`, from the order's answer."""
    [part] = [part for part in parts if part[field] == shop_id]
    return str(part["id"])


def _later(moment: datetime, seconds: int) -> str:
    return (moment.replace(microsecond=0) + timedelta(seconds=seconds)).isoformat()
