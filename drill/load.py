"""A steady stream of orders through the real API, with pays and cancels, written the way a
careful client would: every order carries an Idempotency-Key, and a request that fails for
any reason (a killed web worker, a dropped database connection) is retried with it."""

import math
import random
import time
from dataclasses import dataclass, field

import requests

RETRY_FOR_SECONDS = 120.0

# Each order is one POST and at most one pay or cancel.
REQUESTS_PER_ORDER_MAX = 2
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
    accepted: dict[str, str] = field(default_factory=dict)  # order id -> customer email
    paid: set[str] = field(default_factory=set)
    cancelled: set[str] = field(default_factory=set)
    failed_requests: list[str] = field(default_factory=list)  # gave up on (should stay empty)
    retried_requests: int = 0


class OrderStream:
    def __init__(self, base_url: str, token: str, *, orders: int, rate: float, seed: int):
        self.base_url = base_url
        self.orders = orders
        self.rate = rate
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.result = LoadResult()
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
        body = {
            "customer_email": email,
            "amount": f"{self.rng.randint(100, 99999) / 100:.2f}",
            "currency": "EUR",
        }
        response = self._request(
            "post", "/api/orders/", json=body, headers={"Idempotency-Key": f"drill-{number}"}
        )
        if response is None:
            return
        order_id = response.json()["id"]
        self.result.accepted[order_id] = email
        roll = self.rng.random()
        if roll < 0.10:
            self._change(order_id, "cancel")  # right away: usually before the confirmation
        elif roll < 0.20:
            self._later_cancels.append((time.monotonic() + self.rng.uniform(0.5, 5), order_id))
        elif roll < 0.45:
            self._change(order_id, "pay")

    def _cancel_due(self) -> None:
        now = time.monotonic()
        due = [order_id for at, order_id in self._later_cancels if at <= now]
        self._later_cancels = [(at, order_id) for at, order_id in self._later_cancels if at > now]
        for order_id in due:
            self._change(order_id, "cancel")

    def _change(self, order_id: str, change: str) -> None:
        if self._request("post", f"/api/orders/{order_id}/{change}/", json={}) is not None:
            (self.result.cancelled if change == "cancel" else self.result.paid).add(order_id)

    def _request(self, method: str, path: str, **kwargs) -> requests.Response | None:
        deadline = time.monotonic() + RETRY_FOR_SECONDS
        while True:
            try:
                response = self.session.request(method, self.base_url + path, timeout=15, **kwargs)
                if response.status_code < 500:
                    return response if response.ok else self._gave_up(path, response.text)
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                return self._gave_up(path, "no answer")
            self.result.retried_requests += 1
            time.sleep(0.5)

    def _gave_up(self, path: str, why: str) -> None:
        self.result.failed_requests.append(f"{path}: {why[:200]}")
        return None
