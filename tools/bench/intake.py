"""The intake phase of `make bench`: a connected Shopify shop's order deliveries posted to the
real web process (bin/web, gunicorn with its default workers) at fixed rates, signed as Shopify signs
them, while the worker and the relay send the orders' emails. Measured per delivery, by the
client (tools/bench/http_load.py): the time from opening the connection to reading the
answer (p50, p95, p99). Shopify waits 5 seconds for an answer; the target is a p99 under 50 ms.

One delivery in four is a retry of an earlier one (the same X-Shopify-Event-Id), answered as a
duplicate. The phase checks what it was asked against what happened: every delivery answered
200, of a delivery and its retry one used and one a duplicate, one order per delivery that is
not a retry, each order's confirmation sent; and the deliveries went out at the offered rate.
Otherwise it fails (LoadShortfall) rather than report a lighter load than it names. The web
workers' first deliveries (3 s at 10 a second) are not measured."""

import hashlib
import json
from typing import Any

from tools.bench.cpu import cpu_ms_per_order
from tools.bench.http_load import posts_at_rate, request_bytes
from tools.bench.pipelines import LoadShortfall, offered_check

INTAKE_LOADS = (25, 50)  # deliveries a second
WARM_UP_SECONDS = 3  # at 10 deliveries a second, before the measured loads
RETRY_EVERY = 4  # every 4th delivery repeats the one before it
SHOP_SLUG = "bench-shop"
SHOP_DOMAIN = "bench-shop.myshopify.com"


def intake_shop_create() -> str:
    """The bench's connected shop; its secret, made here (a tracked file holds none)."""
    from shops.models import Shop

    secret = hashlib.sha256(b"the bench's Shopify app").hexdigest()
    Shop.objects.update_or_create(
        slug=SHOP_SLUG,
        defaults={
            "name": "Bench Shop",
            "platform": "shopify",
            "domain": SHOP_DOMAIN,
            "webhook_secret": secret,
        },
    )
    return secret


def intake_load(
    base_url: str, secret: str, *, rate: float, seconds: float, first_number: int
) -> dict[str, Any]:
    """Deliveries at `rate` a second for `seconds`, on a fixed schedule (open loop: a slow
    answer does not delay the next delivery). Returns the quantiles, the rate achieved and what
    was answered; raises LoadShortfall when an answer is not the one expected."""
    from intake import shopify
    from intake.sample_delivery import sample_order
    from shops.models import Shop

    shop = Shop.objects.get(slug=SHOP_SLUG)
    count = int(rate * seconds)
    bodies: list[tuple[bytes, dict[str, str]]] = []
    expected: list[str] = []
    for index in range(count):
        if index % RETRY_EVERY == RETRY_EVERY - 1:
            bodies.append(bodies[-1])
            expected.append("duplicate")
            continue
        number = first_number + index
        _, payload = sample_order(shop, address=f"customer-{number}@bench.example")
        payload |= {"id": number, "name": f"#B{number}"}
        body = json.dumps(payload).encode()
        headers = {
            "Content-Type": "application/json",
            "X-Shopify-Hmac-Sha256": shopify.SIGNING.signature_of(body, secret),
            "X-Shopify-Shop-Domain": SHOP_DOMAIN,
            "X-Shopify-Topic": "orders/create",
            "X-Shopify-Event-Id": f"bench-{number}",
        }
        bodies.append((body, headers))
        expected.append("used")
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    path = f"/shops/{SHOP_SLUG}/webhook"
    raw = [request_bytes(host, int(port), path, body, headers) for body, headers in bodies]
    got = posts_at_rate(host, int(port), raw, rate=rate, timeout=10)
    answers = [(answer.ms, answer.status, _detail(answer.body)) for answer in got]
    sent_at = [answer.sent_at for answer in got]
    wrong = _answers_check(answers, expected)
    if wrong:
        raise LoadShortfall(
            f"intake: {len(wrong)} of {count} deliveries answered otherwise, first {wrong[:3]}"
        )
    placed_per_s = (count - 1) / max(sent_at[-1] - sent_at[0], 1e-6)
    offered_check(placed_per_s, offered=rate, pipeline="intake")
    from tools.bench.measure import quantiles_ms

    times = [a[0] for a in answers]
    cuts = quantiles_ms(times)
    return {
        "deliveries": count,
        "duplicates": expected.count("duplicate"),
        "posted_per_s": placed_per_s,
        "p50": cuts["p50"],
        "p95": cuts["p95"],
        "p99": cuts["p99"],
        "max": max(times),
        # Where in the run the slowest answers came (their delivery's index): a cold start
        # shows as low indexes, a stall as a run of neighbours.
        "slowest": sorted(range(count), key=lambda i: answers[i][0])[-10:],
    }


def intake_orders_check(orders: int) -> None:
    """One order per first delivery, and its confirmation sent."""
    from notifications.models import Notification
    from orders.models import Order

    made = Order.objects.filter(shop__slug=SHOP_SLUG).count()
    sent = Notification.objects.filter(order__shop__slug=SHOP_SLUG, status="sent").count()
    if (made, sent) != (orders, orders):
        raise LoadShortfall(f"intake: {orders} orders delivered, {made} made, {sent} confirmations sent")


def intake_clear() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE intake_platformdelivery CASCADE")


INTAKE_P99_MS = 50  # Shopify waits 5 s; a hundredth of it leaves room for a slow moment


def intake_p99(results: dict) -> float:
    loads = results["intake_ms"]["loads"]
    return float(loads[max(loads)]["p99"]["median"])


def intake_cpu(before: dict[str, float], after: dict[str, float], deliveries: int) -> dict[str, float]:
    """CPU ms per delivery of each component over a load and the sending of its emails, with
    what the rest of the machine took meanwhile ("other": a shared machine's neighbours), which
    is not in the total."""
    per_delivery = cpu_ms_per_order(before, after, deliveries)
    per_delivery["other"] = round((after["other"] - before["other"]) * 1000 / deliveries, 2)
    return per_delivery


def intake_lines(intake: dict | None) -> list[str]:
    """A shop platform's deliveries: the time from request to answer, as the platform waits."""
    if not intake:
        return []
    lines = [
        "",
        f"| shop platform deliveries → answer, ms (web process, {intake.get('web_workers', 2)} workers) "
        "| deliveries/s offered | posted/s | p50 | p95 | p99 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for load, quantiles in intake["loads"].items():
        cells = " | ".join(f"{quantiles[q]['median']:.1f}" for q in ("p50", "p95", "p99"))
        posted = quantiles["posted_per_s"]["median"]
        what = f"Shopify orders/create, 1 in {intake['retry_every']} a retry"
        lines.append(f"| {what} | {load} | {posted:.1f} | {cells} |")
    lines.extend(_cpu_lines(intake["loads"]))
    return lines


def _cpu_lines(loads: dict) -> list[str]:
    """CPU ms per delivery by component at each load (the median run's, by total)."""
    readings = {
        load: _median_reading(table.get("cpu_ms_per_delivery") or []) for load, table in loads.items()
    }
    names = sorted({name for reading in readings.values() for name in reading} - {"total", "other"})
    if not names:
        return []
    lines = [
        "",
        "| CPU ms per delivery (its emails' sending included) | "
        + " | ".join(f"{load}/s" for load in readings)
        + " |",
        "|---|" + "---:|" * len(readings),
    ]
    for name in [*names, "total", "other"]:
        cells = " | ".join(f"{reading.get(name, 0.0):.2f}" for reading in readings.values())
        lines.append(f"| {'rest of the machine (not in the total)' if name == 'other' else name} | {cells} |")
    return lines


def _median_reading(readings: list[dict[str, float]]) -> dict[str, float]:
    ordered = sorted(readings, key=lambda reading: reading["total"])
    return ordered[len(ordered) // 2] if ordered else {}


def _answers_check(answers: list[tuple[float, int, str]], expected: list[str]) -> list[tuple]:
    """The answers that are not what was sent: each 200, and of a delivery and its retry one
    used and one a duplicate. Which comes first is the network's choice: a retry posted 20 ms
    after its original may overtake it, and then the retry is used and the original the
    duplicate, as on a platform."""
    wrong: list[tuple] = [(i, a[1], a[2]) for i, a in enumerate(answers) if a[1] != 200]
    used = [i for i, want in enumerate(expected) if want == "used"]
    for i in used:
        retried = i + 1 < len(expected) and expected[i + 1] == "duplicate"
        pair = sorted(a[2] for a in answers[i : i + 2]) if retried else [answers[i][2]]
        if pair != (["duplicate", "used"] if retried else ["used"]):
            wrong.append((i, answers[i][1], ", ".join(a[2] for a in answers[i : i + 1 + retried])))
    return wrong


def _detail(body: bytes) -> str:
    try:
        return str(json.loads(body).get("detail", ""))
    except (ValueError, AttributeError):
        return body[:200].decode("utf-8", errors="replace")
