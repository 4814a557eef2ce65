"""The retention phase of `make bench`: does clearing a large backlog of personal data slow
the hot path? Ours' commit → sent latency at 50 orders/s over a backlog of BACKLOG_ORDERS
orders a year and a half old (each with a sent email, its snapshot and its attempt), first
with the backlog left alone, then while the retention job (`manage.py` in a process of its
own, as beat runs it) clears it, stopped when the load is measured: in turn, `repeats` times,
a fresh backlog each time.

It checks what it was asked against what happened: the job must have cleared rows while the
load ran (else it did not run beside it), and both loads must go out at the offered rate."""

import subprocess
import sys
import time
import uuid
from datetime import timedelta
from typing import Any

from tools.bench.pipelines import LoadShortfall, offered_check

BACKLOG_ORDERS = 20_000
RATE = 50  # orders a second, as the latency phase's lower load
_SNAPSHOT = "<p>" + "An email as it was sent, with the customer's name and what they bought. " * 60 + "</p>"


def backlog_create(count: int = BACKLOG_ORDERS) -> None:
    """`count` orders placed 540 days ago, each with its confirmation sent then (a snapshot
    of about 4 kB, like a real one) and its attempt: everything the job clears, in bulk."""
    from django.utils import timezone

    from notifications.models import DeliveryAttempt, Notification
    from orders.models import Order

    then = timezone.now() - timedelta(days=540)
    for first in range(0, count, 2000):
        orders = Order.objects.bulk_create(
            Order(customer_email=f"old-{n}@bench.example", amount="9.90", currency="EUR")
            for n in range(first, min(first + 2000, count))
        )
        emails = Notification.objects.bulk_create(
            Notification(
                order=order,
                kind=Notification.Kind.ORDER_CONFIRMATION,
                status=Notification.Status.SENT,
                idempotency_key=uuid.uuid4().hex,
                email_subject="Your order",
                email_text=_SNAPSHOT,
                email_html=_SNAPSHOT,
                email_content_hash=uuid.uuid4().hex,
                status_changed_at=then,
                sent_at=then,
            )
            for order in orders
        )
        DeliveryAttempt.objects.bulk_create(
            DeliveryAttempt(
                notification=email,
                event_id=uuid.uuid4(),
                number=1,
                worker="bench",
                started_at=then,
                finished_at=then,
                outcome=DeliveryAttempt.Outcome.ACCEPTED,
                recipient=email.order.customer_email,
            )
            for email in emails
        )
    Order.objects.filter(customer_email__startswith="old-").update(created_at=then)


def latency_over_load(place: Any, wait_all_sent: Any, *, seconds: float) -> dict[str, float]:
    """Place RATE orders a second for `seconds`; the p50/p95/p99 of their commit → sent."""
    from django.utils import timezone

    from notifications.models import Notification
    from tools.bench.measure import latencies_ms, placed_per_s

    since = timezone.now()
    orders = int(RATE * seconds)
    place(orders, rate=RATE)
    wait_all_sent()
    completions = list(
        Notification.objects.filter(created_at__gte=since).values_list("created_at", "sent_at")
    )
    if len(completions) != orders:
        raise LoadShortfall(f"retention phase: {orders} orders placed, {len(completions)} emails found")
    result = {**latencies_ms(completions), "placed_per_s": placed_per_s(completions)}
    offered_check(result["placed_per_s"], offered=RATE, pipeline="ours")
    return result


def retention_process_start(env: dict[str, str]) -> subprocess.Popen:
    """The hourly job, run now, in a process of its own; bounded by its own time limit."""
    code = "from messaging.retention import retention_run; print(retention_run().counts())"
    return subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def retention_process_clearing(process: subprocess.Popen, left: int, *, timeout: float = 90) -> int:
    """Wait until the job has cleared its first batch (its process started, Django imported:
    the load must meet the job at work, not its start-up); the snapshots left then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        now_left = backlog_snapshots_left()
        if now_left < left:
            return now_left
        time.sleep(0.2)
    raise LoadShortfall(f"retention: the job cleared nothing within {timeout:g} s of its start")


def retention_process_stop(process: subprocess.Popen) -> str:
    """Stop the job once the load is measured (each batch is a transaction of its own: what it
    cleared stays, what it had not reached is truncated with the backlog). A job that ended
    before the load did must have ended well, and says what it removed."""
    if process.poll() is None:
        process.terminate()
        process.communicate(timeout=30)
        return "still clearing when the load ended: stopped"
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"the retention job failed: {err[-2000:]}")
    return f"done before the load ended: {out.strip().splitlines()[-1]}"


def backlog_snapshots_left() -> int:
    """Emails of the backlog (finished more than a year ago) whose snapshot is not cleared yet."""
    from django.utils import timezone

    from notifications.models import Notification

    old = timezone.now() - timedelta(days=365)
    return Notification.objects.filter(status_changed_at__lt=old).exclude(email_html="").count()


def retention_lines(retention: dict | None) -> list[str]:
    """Ours' latency over the backlog, left alone and while the job clears it."""
    if not retention:
        return []
    lines = [
        "",
        f"| ours at {retention['rate']} orders/s over {retention['backlog_orders']:,} old orders, ms "
        "| p50 | p95 | p99 |",
        "|---|---:|---:|---:|",
    ]
    for name, words in (("alone", "backlog left alone"), ("beside", "while the retention job clears it")):
        cells = " | ".join(f"{retention[name][q]['median']:.1f}" for q in ("p50", "p95", "p99"))
        lines.append(f"| {words} | {cells} |")
    cleared = ", ".join(f"{count:,}" for count in retention["cleared_during_load"])
    lines.append(f"\nSnapshots the job cleared while the load ran, each run: {cleared}.")
    return lines
