"""The shop's stream: orders at a steady rate, most of them a shop's orders with several lines
(every fifth in the short body of the first release), some paid, some shipped in two parcels,
some partly refunded, some cancelled, some to addresses the provider refuses or that bounce,
and a provider outage in the middle."""

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import requests

from tools.demo.stack import faults_set

# Always on: the provider refuses some addresses, bounces others, says for a few that it holds
# another email under their key (a person must check: needs review), and now and then drops
# the connection after it accepted an email (an unknown outcome, resent under the same key).
STEADY_FAULTS = (
    {"kind": "reject", "to_contains": "refused-"},
    {"kind": "key_conflict", "to_contains": "conflicting-"},
    {"kind": "bounce", "to_contains": "bounces-"},
    {"kind": "accept_then_drop", "rate": 0.05},
)
OUTAGE = {"kind": "503", "retry_after": 5}


@dataclass
class Placed:
    orders: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # order ids whose address the provider refuses
    bounced_addresses: list[str] = field(default_factory=list)
    cancelled: int = 0
    paid: int = 0
    parcels: int = 0
    parcel_news: int = 0  # pieces of a parcel's news (out for delivery, a failed attempt, delivered)
    edits: int = 0  # orders changed after they were placed
    refunds: int = 0
    outage_seconds: float = 0.0


class ShopStream:
    def __init__(
        self,
        web: str,
        mailsim: str,
        token: str,
        *,
        minutes: float,
        rate: float,
        seed: int,
        also: Callable[[int], None] | None = None,
    ):
        """`also(number)`: called after each order of the API, for what else comes in at that
        pace (the platforms' deliveries, platforms.py)."""
        self.web, self.mailsim, self.rate, self.also = web, mailsim, rate, also
        self.seconds = minutes * 60
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.placed = Placed()

    def run(self) -> Placed:
        faults_set(self.mailsim, *STEADY_FAULTS)
        started, number, outage = time.monotonic(), 0, False
        # The provider is down from 55 % to 75 % of the run: the circuit opens, emails wait.
        outage_from, outage_to = 0.55 * self.seconds, 0.75 * self.seconds
        while (elapsed := time.monotonic() - started) < self.seconds:
            if not outage and outage_from <= elapsed < outage_to:
                faults_set(self.mailsim, OUTAGE, *STEADY_FAULTS)
                outage, outage_started = True, time.monotonic()
                print(f"  {elapsed:5.0f} s: the provider answers 503 to everything for a while")
            elif outage and elapsed >= outage_to:
                faults_set(self.mailsim, *STEADY_FAULTS)
                outage, self.placed.outage_seconds = False, time.monotonic() - outage_started
                print(f"  {elapsed:5.0f} s: the provider is back")
            self._one(number, during_outage=outage)
            if self.also is not None:
                self.also(number)
            number += 1
            time.sleep(max(0.0, started + number / self.rate - time.monotonic()))
        if outage:
            faults_set(self.mailsim, *STEADY_FAULTS)
        return self.placed

    def _one(self, number: int, *, during_outage: bool) -> None:
        roll = self.rng.random()
        if roll < 0.06:
            address = f"refused-{number}@example.com"
        elif roll < 0.10:
            address = f"bounces-{number}@example.com"
        elif roll < 0.12:
            address = f"conflicting-{number}@example.com"
        elif roll < 0.15 and self.placed.bounced_addresses:
            address = self.rng.choice(self.placed.bounced_addresses)  # ordering again: suppressed
        else:
            address = f"customer-{number}@example.com"
        body = self._short_order(address) if number % 5 == 4 else self._shop_order(number, address)
        response = self.session.post(
            f"{self.web}/api/orders/",
            json=body,
            headers={"Idempotency-Key": f"demo-{time.time_ns()}-{number}"},
            timeout=10,
        )
        if response.status_code != 201:
            print(f"  order {number} refused by the API: {response.status_code} {response.text[:120]}")
            return
        order_id = response.json()["id"]
        self.placed.orders.append(order_id)
        if address.startswith("refused-"):
            self.placed.refused.append(order_id)
        if address.startswith("bounces-"):
            self.placed.bounced_addresses.append(address)
        change, paid = self.rng.random(), False
        # While the provider is down the confirmation waits, so a cancellation skips it.
        if change < (0.25 if during_outage else 0.05):
            self._change(order_id, "cancel")
            return
        if "lines" in body and self.rng.random() < 0.25:
            self._edit(order_id, body)
        if change < 0.35:
            paid = self._change(order_id, "pay")
        if "lines" in body and self.rng.random() < 0.3:
            self._ship_in_two_parcels(order_id, body, paid=paid)

    def _edit(self, order_id: str, body: dict) -> None:
        """The customer asked for one more of the first line: the order changes, and `body`
        becomes what it holds now (its parcels ship that)."""
        first = body["lines"][0]
        first["quantity"] += 1
        first["total"] = first["quantity"] * first["unit_price"]
        body["total"] += first["unit_price"]
        body["tax_total"] = body["total"] * 19 // 119
        change = {"lines": body["lines"], "total": body["total"], "tax_total": body["tax_total"]}
        edited = self.session.patch(f"{self.web}/api/orders/{order_id}/", json=change, timeout=10)
        if edited.status_code == 200:
            self.placed.edits += 1
        else:
            print(
                f"  order {order_id}: its change refused by the API: {edited.status_code} {edited.text[:120]}"
            )

    def _shop_order(self, number: int, address: str) -> dict:
        """A shop's order of one to four lines, with shipping and now and then a discount."""
        lines: list[dict[str, Any]] = []
        for index in range(self.rng.randint(1, 4)):
            quantity, unit_price = self.rng.randint(1, 3), self.rng.randint(250, 6000)
            lines.append(
                {
                    "sku": f"SKU-{index + 1}",
                    "name": self.rng.choice(["Green tea", "Mug", "Teapot", "Honey", "Biscuits"]),
                    "quantity": quantity,
                    "unit_price": unit_price,
                    "total": quantity * unit_price,
                    "tax_rate": "0.19",
                }
            )
        discounts: list[dict[str, Any]] = (
            [{"code": "WELCOME", "amount": 200}] if self.rng.random() < 0.2 else []
        )
        total = sum(line["total"] for line in lines) + 490 - sum(d["amount"] for d in discounts)
        return {
            "number": f"D{number:05d}-{time.time_ns() % 10**6}",
            "customer_email": address,
            "customer_name": f"Customer {number}",
            "currency": "EUR",
            "lines": lines,
            "shipping_address": {
                "name": f"Customer {number}",
                "line1": "Hauptstrasse 1",
                "postal_code": "10115",
                "city": "Berlin",
                "country": "DE",
            },
            "shipping": {"method": "DHL Paket", "price": 490},
            "discounts": discounts,
            "tax_total": total * 19 // 119,
            "payment_method": "Credit card, paid",
            "total": total,
        }

    def _short_order(self, address: str) -> dict:
        amount = f"{self.rng.randint(500, 25000) / 100:.2f}"
        return {"customer_email": address, "amount": amount, "currency": self.rng.choice(["EUR", "USD"])}

    def _journey(self, order_id: str, parcel_id: str) -> None:
        """The carrier's news of the parcel: out for delivery, for some a failed attempt and out
        again the next day, then delivered (each its email, at most once per parcel)."""
        left = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
        journey = ["out_for_delivery", "delivered"]
        if self.rng.random() < 0.3:
            journey[1:1] = ["attempted_delivery", "in_transit", "out_for_delivery"]
        for number, status in enumerate(journey, 1):
            answered = self.session.post(
                f"{self.web}/api/orders/{order_id}/shipments/{parcel_id}/events/",
                json={
                    "event_id": f"N{number}",
                    "status": status,
                    "happened_at": (left + timedelta(hours=number * 3)).isoformat(),
                },
                timeout=10,
            )
            if answered.status_code != 201:
                return
            self.placed.parcel_news += 1

    def _ship_in_two_parcels(self, order_id: str, body: dict, *, paid: bool) -> None:
        """The first line in one parcel, the rest in a second; then, for some, the first line
        refunded (a return of the first parcel), the order paid first if it was not: the API
        refunds only what was paid."""
        first, *rest = body["lines"]
        parcels = [("P1", [first]), ("P2", rest)] if rest else [("P1", [first])]
        for parcel_id, lines in parcels:
            shipped = self.session.post(
                f"{self.web}/api/orders/{order_id}/shipments/",
                json={
                    "shipment_id": parcel_id,
                    "carrier": "DHL",
                    "tracking_number": f"0034{self.rng.randint(10**9, 10**10)}",
                    "lines": [{"sku": line["sku"], "quantity": line["quantity"]} for line in lines],
                },
                timeout=10,
            )
            if shipped.status_code != 201:  # a cancelled order ships nothing: the API says so
                return
            self.placed.parcels += 1
        self._journey(order_id, "P1")
        if self.rng.random() < 0.5:
            if not paid and not self._change(order_id, "pay"):
                return
            refunded = self.session.post(
                f"{self.web}/api/orders/{order_id}/refunds/",
                json={
                    "refund_id": "R1",
                    "amount": first["total"],
                    "lines": [{"sku": first["sku"], "quantity": first["quantity"]}],
                    "reason": "Returned",
                    "shipment_id": "P1",
                },
                timeout=10,
            )
            if refunded.status_code == 201:
                self.placed.refunds += 1

    def _change(self, order_id: str, change: str) -> bool:
        """Whether the API made the change."""
        response = self.session.post(f"{self.web}/api/orders/{order_id}/{change}/", json={}, timeout=10)
        if response.status_code in (200, 201):
            if change == "cancel":
                self.placed.cancelled += 1
            else:
                self.placed.paid += 1
        return response.status_code in (200, 201)
