"""The pieces of the restore drill: its timed steps, an order stream that notes when each order
was accepted, pg_dump and pg_restore of the stack's database, and what it reads back."""

import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import requests
from kombu import Connection

from messaging.broker.channel import amqp_channel, queue_counts
from tools.drill.load import OrderStream
from tools.drill.processes import PG
from tools.drill.sql import one_row
from tools.drill.stack import DrillStack
from tools.drill.verdict import unfinished_counts

WORK_QUEUES = (
    "orders.confirmations",
    "orders.cancellations",
    "orders.shipments",
    "orders.refunds",
    "orders.analytics",
    "notifications.provider_events",
)
HOLD_LEAD_SECONDS = 0.5
_RESTORE_REASON = re.compile(r"The order (\S+) is not in the database")


@dataclass
class Steps:
    """Each step of the drill with when it started (seconds into the drill), how long it took
    and what it said: the report's table."""

    started: float = field(default_factory=time.monotonic)
    wall_started: float = field(default_factory=time.time)
    rows: list[dict] = field(default_factory=list)

    @contextmanager
    def step(self, name: str) -> Iterator[dict]:
        row = {"step": name, "at": round(time.monotonic() - self.started, 1), "seconds": None, "note": ""}
        self.rows.append(row)
        began = time.monotonic()
        try:
            yield row
        finally:
            row["seconds"] = round(time.monotonic() - began, 1)


class TimedOrderStream(OrderStream):
    """tools.drill.load's careful client, numbering its customers from `first_number` (a second
    stream does not reuse the first one's customers or keys) and noting the wall time at which
    each order's 201 came back."""

    def __init__(self, *args: Any, first_number: int = 0, **kwargs: Any):
        # No parcels or refunds: the restore verdict knows an email by its customer and kind
        # (restore_verdict.py), and a customer's parcels are several emails of one kind. The
        # main drill's verdict, per notification, covers them.
        super().__init__(*args, shipped_share=0.0, **kwargs)
        self.first_number = first_number
        self.accepted_at: dict[str, float] = {}

    def _place(self, number: int) -> None:
        super()._place(self.first_number + number)

    def _request(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        response = super()._request(method, path, **kwargs)
        if response is not None and path == "/api/orders/":
            self.accepted_at[response.json()["id"]] = time.time()
        return response


class PaidOrderStream(TimedOrderStream):
    """Orders after the restore: each a shop's, with lines, paid at once, so each is issued an
    invoice (INVOICE_ISSUED_WHEN=paid, the stack's) and takes the next number of its series:
    past the void when the runbook's step 4 was done, one already emailed when it was not."""

    def _place(self, number: int) -> None:
        number += self.first_number
        email = f"customer{number}@drill.example"
        body = self._shop_body(number, email)
        response = self._request(
            "post", "/api/orders/", json=body, headers={"Idempotency-Key": f"drill-{number}"}
        )
        if response is not None:
            self.result.accepted[response.json()["id"]] = email
            self._change(response.json()["id"], "pay")


class DumpAt(threading.Thread):
    """`pg_dump -Fc` of the database in the background once `stream` has placed `after_orders`
    orders (the orders keep flowing); its wall-clock start and end. From HOLD_LEAD_SECONDS before
    the dump until it ends the provider answers each send `provider_hold` seconds late (within the
    read timeout), so emails are in flight at the restore point, as they are when a crash picks
    its moment."""

    def __init__(
        self, stack: DrillStack, path: Path, stream: OrderStream, *, after_orders: int, provider_hold: float
    ):
        super().__init__(daemon=True)
        self.stack, self.path, self.stream, self.after_orders = stack, path, stream, after_orders
        self.provider_hold = provider_hold
        self.started_at = self.finished_at = 0.0
        self.error: str | None = None

    def run(self) -> None:
        while len(self.stream.result.accepted) < self.after_orders:
            time.sleep(0.05)
        faults = f"{self.stack.mailsim_url}/_sim/faults"
        if self.provider_hold:
            rules = [{"kind": "hold", "seconds": self.provider_hold}]
            requests.post(faults, json={"rules": rules}, timeout=5).raise_for_status()
            time.sleep(HOLD_LEAD_SECONDS)
        self.started_at = time.time()
        command = ["pg_dump", "-Fc", *_pg_args(self.stack.database), "-f", str(self.path)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        self.finished_at = time.time()
        requests.delete(faults, timeout=5).raise_for_status()
        if result.returncode != 0:
            self.error = f"pg_dump failed: {result.stderr[-2000:]}"


def pg_restore(database: str, path: Path) -> str:
    """`pg_restore --clean --if-exists` into the same database, in one transaction."""
    command = ["pg_restore", "--clean", "--if-exists", "--single-transaction", "--exit-on-error"]
    result = subprocess.run(
        [*command, *_pg_args(database), str(path)], capture_output=True, text=True, timeout=600
    )
    if result.returncode != 0:
        raise RuntimeError(f"pg_restore failed: {result.stderr[-2000:]}")
    return " ".join([*command, "-d", database, path.name])


def _pg_args(database: str) -> list[str]:
    return ["-h", PG["host"], "-p", str(PG["port"]), "-U", PG["user"], "-d", database]


def order_ids(dsn: str) -> set[str]:
    with psycopg.connect(dsn) as connection:
        return {row[0] for row in connection.execute("SELECT id::text FROM orders_order")}


def restore_dead_lettered_orders(dsn: str) -> set[str]:
    """The orders named by the dead letters of class `restore` (the after-restore check's)."""
    with psycopg.connect(dsn) as connection:
        reasons = connection.execute(
            "SELECT reason FROM messaging_deadletterrecord WHERE error_class = 'restore'"
        ).fetchall()
    return {match.group(1) for (reason,) in reasons if (match := _RESTORE_REASON.search(reason))}


def queues_ready_empty(broker_url: str) -> bool:
    """No message waiting in any work queue (one a worker holds shows as an unfinished email)."""
    with Connection(broker_url, connect_timeout=5) as connection:
        channel = amqp_channel(connection)
        depths = [queue_counts(channel, name) for name in WORK_QUEUES]
    return all(ready == 0 for ready, _ in depths)


def settled(dsn: str, broker_url: str) -> bool:
    return unfinished_counts(dsn) == (0, 0) and queues_ready_empty(broker_url)


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def sim_messages(mailsim_url: str) -> list[dict]:
    return requests.get(f"{mailsim_url}/_sim/messages", timeout=60).json()["messages"]


def sim_requests(mailsim_url: str) -> list[dict]:
    return requests.get(f"{mailsim_url}/_sim/requests", timeout=60).json()["requests"]


def lost_cancellations(dsn: str, cancelled: set[str]) -> set[str]:
    """Orders the client cancelled that the restored database has, but not as cancelled."""
    with psycopg.connect(dsn) as connection:
        rows = connection.execute("SELECT id::text FROM orders_order WHERE status <> 'cancelled'").fetchall()
    return cancelled & {row[0] for row in rows}


def sent_without_delivery_state(dsn: str) -> int:
    with psycopg.connect(dsn) as connection:
        return one_row(
            connection.execute(
                "SELECT count(*) FROM notifications_notification "
                "WHERE status = 'sent' AND delivery_status = ''"
            )
        )[0]
