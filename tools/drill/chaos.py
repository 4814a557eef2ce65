"""What the drill does to the product while orders flow: kills, broker kills
(tools/drill/broker_faults.py), dropped database connections, a misbehaving mail provider, and events
published again out of order."""

import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
import requests
from kombu import Connection, Producer

from messaging.task_names import HANDLE_EVENT
from tools.drill.broker_faults import kill_queue_node, restart_single_node
from tools.drill.database_faults import primary_fault, primary_fault_note
from tools.drill.stack import DrillStack

# The provider's webhooks misbehave too: a fifth of the events posted twice, and each email's
# events posted last first (delivered before sent).
WEBHOOK_FAULTS = {"duplicate_rate": 0.2, "reorder": True, "seed": 7, "delivery_delay_seconds": 0.2}
# Now and then some published events are published again: this share of them, each this many
# more times, in shuffled order.
REPUBLISHED_SHARE = 0.1
REPUBLISHED_COPIES = (2, 3)
PROVIDER_FAULTS = [
    {"kind": "503", "rate": 0.05, "retry_after": 1},
    {"kind": "429", "rate": 0.03, "retry_after": 1},
    {"kind": "stall", "rate": 0.02, "seconds": 3},  # past the drill's 2 s read timeout: unknown
    {"kind": "accept_then_drop", "rate": 0.03},
]


@dataclass
class ChaosLog:
    worker_kills: int = 0
    relay_kills: int = 0
    broker_restarts: int = 0  # one node: SIGKILL and start again
    broker_kills: list[dict] = field(default_factory=list)  # a cluster's nodes (NodeKill)
    database_faults: list[dict] = field(default_factory=list)  # a database cluster's (PrimaryFault)
    database_terminations: int = 0
    republished_copies: int = 0
    events: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        self.events.append(f"{time.strftime('%H:%M:%S')} {what}")


# How often the schedule of database faults is looked at while the chaos waits.
DUE_POLL_SECONDS = 0.2


class Chaos(threading.Thread):
    def __init__(
        self,
        stack: DrillStack,
        *,
        seed: int,
        kill_every: float,
        broker_faults: list[tuple[float, str]],
        database_faults: list[tuple[int, str]] | None = None,
        orders_placed: Callable[[], int] = lambda: 0,
    ):
        """`broker_faults`: (seconds into the stream, "restart" | "leader" | "follower"), each once.
        `database_faults`: (orders placed, "crash" | "freeze"), each once, as soon as the load
        has placed that many orders (`orders_placed`): they follow the stream, which a
        failover slows down, not the clock."""
        super().__init__(daemon=True)
        self.stack = stack
        self.rng = random.Random(seed)
        self.kill_every = kill_every
        self.broker_faults = sorted(broker_faults)
        self.database_faults = sorted(database_faults or [])
        self.orders_placed = orders_placed
        self.log = ChaosLog()
        self._halt = threading.Event()

    def provider_faults_on(self) -> None:
        requests.post(
            f"{self.stack.mailsim_url}/_sim/faults", json={"rules": PROVIDER_FAULTS, "seed": 7}, timeout=5
        ).raise_for_status()
        self.log.note("provider faults on: 503, 429, stalls past the read timeout, accept-then-drop")
        requests.post(
            f"{self.stack.mailsim_url}/_sim/webhooks", json=WEBHOOK_FAULTS, timeout=5
        ).raise_for_status()
        self.log.note("webhooks: 20 % posted twice, each email's events in reverse order")

    def provider_faults_off(self) -> None:
        requests.delete(f"{self.stack.mailsim_url}/_sim/faults", timeout=5).raise_for_status()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=120)

    def run(self) -> None:
        started = time.monotonic()
        # One of each kind early, so even a short drill sees every fault; then at random. The
        # quick ones first: a kill waits until its replacement is ready (seconds).
        steps = [self._republish, self._terminate_connections, self._kill_worker, self._kill_relay]
        for step in steps:
            if self._wait(self.kill_every / 2):
                break
            self._step(step)
        while not self._wait(self.kill_every):
            if self.broker_faults and time.monotonic() - started > self.broker_faults[0][0]:
                self._broker_fault(self.broker_faults.pop(0)[1])
                continue
            self._step(self.rng.choice(steps))
        while self.broker_faults:  # the stream ended first: the rest now
            self._broker_fault(self.broker_faults.pop(0)[1])
        while self.database_faults:
            self._database_fault(self.database_faults.pop(0)[1])

    def _wait(self, seconds: float) -> bool:
        """Wait `seconds`, doing each database fault that falls due meanwhile; True once halted."""
        deadline = time.monotonic() + seconds
        while True:
            while self.database_faults and self.orders_placed() >= self.database_faults[0][0]:
                self._database_fault(self.database_faults.pop(0)[1])
            left = deadline - time.monotonic()
            if left <= 0:
                return self._halt.is_set()
            if self._halt.wait(min(left, DUE_POLL_SECONDS)):
                return True

    def _step(self, step: Callable[[], None]) -> None:
        """A fault that needs the database (connection drops, republishing) cannot be done
        while the database fails over: it is skipped then, and the chaos goes on."""
        try:
            step()
        except psycopg.OperationalError as exc:
            self.log.note(f"{step.__name__.strip('_')} skipped, no primary to reach: {exc}")

    def _database_fault(self, kind: str) -> None:
        assert self.stack.database_cluster is not None, "database faults need a database cluster"
        fault = primary_fault(
            self.stack.database_cluster,
            kind,
            database=self.stack.database,
            orders_placed=self.orders_placed(),
        )
        fault["orders_flowing"] = not self._halt.is_set()
        self.log.database_faults.append(fault)
        self.log.note(primary_fault_note(fault))

    def _kill_worker(self) -> None:
        self.log.note(f"SIGKILL {self.stack.kill_and_restart('worker', self.rng)}, restarted")
        self.log.worker_kills += 1

    def _kill_relay(self) -> None:
        self.log.note(f"SIGKILL {self.stack.kill_and_restart('relay', self.rng)}, restarted")
        self.log.relay_kills += 1

    def _broker_fault(self, kind: str) -> None:
        if kind == "restart":
            seconds = restart_single_node(self.stack)
            self.log.broker_restarts += 1
            self.log.note(f"RabbitMQ killed (SIGKILL) and started again: back after {seconds:.1f} s")
            return
        kill = kill_queue_node(self.stack, kind, self.rng, orders_flowing=not self._halt.is_set())
        self.log.broker_kills.append(kill)
        leader = (
            f"new leader after {kill['seconds_to_new_leader']} s" if kind == "leader" else "leader unchanged"
        )
        publish = kill["seconds_to_confirmed_publish"]
        self.log.note(
            f"SIGKILL RabbitMQ node {kill['node']} ({kind} of orders.confirmations): {leader}, "
            + (
                "no confirmed publish within the wait"
                if publish is None
                else f"a confirmed publish after {publish} s"
            )
            + f"; started again, back after {kill['seconds_to_restart']} s"
        )

    def _terminate_connections(self) -> None:
        terminated = self.stack.terminate_database_connections()
        self.log.database_terminations += 1
        self.log.note(f"pg_terminate_backend: {terminated} database connections dropped")

    def _republish(self) -> None:
        copies = republish_some(self.stack, self.rng, share=REPUBLISHED_SHARE)
        self.log.republished_copies += copies
        self.log.note(f"{copies} copies of published events sent again, shuffled")


def _published_events(stack: DrillStack, *, wait_for_order_events: float) -> list[tuple]:
    """The published outbox events; early in a stream, once the first order event is among
    them (waiting at most `wait_for_order_events` seconds)."""
    deadline = time.monotonic() + wait_for_order_events
    while True:
        with psycopg.connect(stack.database_dsn) as connection:
            rows = connection.execute(
                "SELECT id, event_type, payload FROM messaging_outboxevent WHERE published_at IS NOT NULL"
            ).fetchall()
        if any(row[1].startswith("order.") for row in rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.2)


def republish_some(stack: DrillStack, rng: random.Random, *, share: float) -> int:
    """Publish REPUBLISHED_COPIES more copies of a share of the published events, shuffled: what a
    relay that lost its confirms, or a network that duplicated, would do."""
    rows = _published_events(stack, wait_for_order_events=10.0)
    chosen = [row for row in rows if rng.random() < share]
    # A step that repeats no order event proves nothing about the emails (the providers'
    # webhook events are in the outbox too, and soon outnumber them).
    order_events = [row for row in rows if row[1].startswith("order.")]
    if order_events and not any(row[1].startswith("order.") for row in chosen):
        chosen.append(rng.choice(order_events))
    copies = [row for row in chosen for _ in range(rng.choice(REPUBLISHED_COPIES))]
    rng.shuffle(copies)
    try:
        with Connection(stack.rabbit.url, connect_timeout=5) as connection:
            producer = Producer(connection.channel())
            for event_id, event_type, payload in copies:
                producer.publish(
                    json.dumps(
                        [[payload], {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
                    ),
                    exchange="orders.events",
                    routing_key=event_type,
                    content_type="application/json",
                    content_encoding="utf-8",
                    headers=_task_headers(str(event_id)),
                    message_id=str(event_id),
                    correlation_id=str(uuid.UUID(str(event_id))),
                    delivery_mode=2,
                )
    except Exception:  # the broker may be restarting: fewer copies this time, not a failed drill
        return 0
    return len(copies)


def _task_headers(event_id: str) -> dict:
    """Celery's task message headers (protocol 2) for the event's task id."""
    return {
        "lang": "py",
        "task": HANDLE_EVENT,
        "id": event_id,
        "root_id": event_id,
        "parent_id": None,
        "group": None,
        "group_index": None,
        "shadow": None,
        "eta": None,
        "expires": None,
        "retries": 0,
        "timelimit": [None, None],
        "argsrepr": "",
        "kwargsrepr": "",
        "origin": "drill",
        "ignore_result": True,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
