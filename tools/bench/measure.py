"""The measurements. Each returns plain numbers; the runner repeats them and reports medians
with their spread. Throughput is counted from the database's own timestamps (commit and
`sent_at`), so the clock of a measurement is the system's, not the load generator's."""

import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

from django.db import connection, transaction

from messaging.models import OutboxEvent
from messaging.outbox import outbox_event_build
from messaging.registry import event_type_get
from messaging.relay.publisher import process_publisher
from messaging.relay.relay import (
    outbox_claim_batch,
    outbox_mark_published,
    outbox_message,
    relay_outbox_sweep,
)
from notifications.models import Notification
from orders.events import ORDER_CREATED
from orders.models import Order, site_locale
from orders.services import order_create
from tools.bench.naive.models import NaiveOrder
from tools.bench.naive.pipeline import naive_order_create

# --- the relay over a backlog ------------------------------------------------------------------


def backlog_create(events: int) -> None:
    """Unpublished `order.created` events (their orders are not needed: no worker runs)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO messaging_outboxevent (id, event_type, aggregate_type, aggregate_id,
                schema_version, payload, created_at, claimed_by, publish_attempts, last_publish_error)
            SELECT id, 'order.created', 'order', gen_random_uuid()::text, 1,
                   jsonb_build_object(
                       'event_id', id::text, 'event_type', 'order.created', 'schema_version', 1,
                       'order_id', gen_random_uuid()::text, 'occurred_at', now()::text),
                   now(), '', 0, ''
              FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, %s)) AS ids
            """,
            [events],
        )


def relay_drain_pipelined() -> float:
    """Our relay as configured (OUTBOX_RELAY_BATCH_SIZE): claim a batch, publish it all,
    collect the confirms, mark; until empty."""
    events = OutboxEvent.objects.filter(published_at__isnull=True).count()
    started = time.perf_counter()
    while relay_outbox_sweep(time_budget_seconds=3600).published:
        pass
    return events / (time.perf_counter() - started)


def relay_drain_waiting_for_each_confirm() -> float:
    """The same claims and marks, but each message waits for its own confirm before the next:
    what a relay built on Celery's `confirm_publish` does."""
    events = OutboxEvent.objects.filter(published_at__isnull=True).count()
    publisher = process_publisher()
    started = time.perf_counter()
    while batch := outbox_claim_batch(limit=200):
        confirmed = []
        for event in batch:
            confirmed += publisher.publish([outbox_message(event)]).confirmed
        outbox_mark_published(confirmed)
    return events / (time.perf_counter() - started)


def backlog_reset() -> None:
    OutboxEvent.objects.update(published_at=None, next_attempt_at=None)


# --- orders, both pipelines ---------------------------------------------------------------------


def ours_place(count: int, *, rate: float | None = None) -> None:
    place_by_placers(
        lambda n: order_create(customer_email=f"b{n}@bench.example", amount=Decimal("9.90"), currency="EUR"),
        count,
        rate,
    )


def ours_place_for_the_relay(count: int) -> None:
    """The rows `order_create` commits (the order, its outbox event, the pending notification),
    but no publish after the commit: every event waits for a relay process, as after a crash
    or while the broker was away. The scaling phase varies the relay processes this way; with
    `order_create` the placing process publishes each event itself and the relays idle."""
    event_type = event_type_get(ORDER_CREATED)
    record_hook = event_type.record_hook_function()
    assert record_hook is not None  # the pending notification, which the phase counts as sent

    def create(number: int) -> None:
        with transaction.atomic():
            order = Order.objects.create(
                customer_email=f"b{number}@bench.example", amount="9.90", currency="EUR", locale=site_locale()
            )
            event = outbox_event_build(event_type=event_type, aggregate_id=order.id)
            event.save(force_insert=True)
            record_hook(event)

    place_by_placers(create, count, None)


def naive_place(count: int, *, rate: float | None = None) -> None:
    place_by_placers(
        lambda n: naive_order_create(customer_email=f"b{n}@bench.example", amount="9.90", currency="EUR"),
        count,
        rate,
    )


# Orders come from several placers at once, as from a web server's worker processes: one
# placer waits for each order's commit (and, in ours, the broker's confirm of its event) before
# the next, so it measures one request's latency, not what the pipeline can take. Each placer
# thread has its own database connection and its own publisher (process_publisher is per
# thread); the threads live as long as the benchmark, so their connections are reused.
PLACERS = 8
_placers: ThreadPoolExecutor | None = None


def place_by_placers(create: Callable[[int], object], count: int, rate: float | None) -> None:
    """`count` orders, as fast as the placers go, or order n at `n / rate` seconds."""
    global _placers
    if _placers is None:
        _placers = ThreadPoolExecutor(max_workers=PLACERS, thread_name_prefix="placer")
    started = time.perf_counter()

    def placer(first: int) -> None:
        for number in range(first, count, PLACERS):
            if rate:
                time.sleep(max(0.0, started + number / rate - time.perf_counter()))
            create(number)

    list(_placers.map(placer, range(PLACERS)))  # raises what a placer raised


def placed_per_s(completions: list[tuple]) -> float:
    """The rate the orders were committed at (what a phase offered, as it happened)."""
    created = sorted(created for created, _ in completions)
    return (len(created) - 1) / max((created[-1] - created[0]).total_seconds(), 1e-6)


def ours_wait_all_sent(timeout: float = 300) -> None:
    wait_until(lambda: not Notification.objects.exclude(status="sent").exists(), timeout)


def naive_wait_all_sent(timeout: float = 300) -> None:
    wait_until(lambda: not NaiveOrder.objects.exclude(status="sent").exists(), timeout)


def wait_until(done: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the pipeline did not finish in time")
        time.sleep(0.2)


def ours_completions() -> list[tuple]:
    return list(Notification.objects.values_list("created_at", "sent_at"))


def naive_completions() -> list[tuple]:
    return list(NaiveOrder.objects.values_list("created_at", "sent_at"))


def throughput(completions: list[tuple]) -> float:
    """Orders per second from the first commit to the last acceptance."""
    first = min(created for created, _ in completions)
    last = max(sent for _, sent in completions)
    return len(completions) / max((last - first).total_seconds(), 1e-6)


def drain_rate(completions: list[tuple]) -> float:
    """Orders per second from the first acceptance to the last (a queued backlog)."""
    sent = sorted(sent for _, sent in completions)
    return (len(sent) - 1) / max((sent[-1] - sent[0]).total_seconds(), 1e-6)


def latencies_ms(completions: list[tuple]) -> dict[str, float]:
    return quantiles_ms([(sent - created) / timedelta(milliseconds=1) for created, sent in completions])


def quantiles_ms(values: list[float]) -> dict[str, float]:
    """p50, p95 and p99 of durations in ms, with their count: every phase cuts them alike."""
    cuts = statistics.quantiles(values, n=100)
    return {"p50": cuts[49], "p95": cuts[94], "p99": cuts[98], "count": len(values)}


def clear_orders() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE notifications_deliveryattempt, messaging_processedevent, "
            "notifications_notification, messaging_outboxevent, orders_order, naive_naiveorder, "
            "messaging_deadletterrecord, "
            "notifications_operatoraction CASCADE"
        )


def resident_memory_kib(process_group_leader: int) -> int:
    """RSS of a process and its children (a Celery worker and its pool)."""
    total = 0
    for status in _group_status_files(process_group_leader):
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def _group_status_files(leader: int) -> list[str]:

    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) == leader:
                with open(f"/proc/{entry}/status") as file:
                    found.append(file.read())
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            continue
    return found
