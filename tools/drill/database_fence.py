"""Did a frozen primary confirm a write after another node took over? Writes aimed at that one
node (its own port, never the multi-host address), as a client connected to it would make.

Two kinds of client, as the product has them:

- one already connected before the freeze, whose write goes out while the node is frozen
  (`write_in_flight`): a web or worker process in the middle of its work; it waits, unanswered,
  until the node is thawed;
- new connections after the thaw (`probe_until`): a process that reconnects and lands on the
  old node, because a multi-host address tries its hosts in turn and the old node still says
  it takes writes until its Patroni has demoted it.

With a synchronous standby a commit on the old node waits for that standby's word, which never
comes (the standby leads now), until Patroni stops the old PostgreSQL: the client gets an error,
never a confirmation. Asynchronously, the old node confirms what it is sent until it is
demoted, and pg_rewind takes it back: a write confirmed, then lost. Each probe row is read
again on the new primary once the drill has settled (`fence_lost`).
"""

import threading
import time
import uuid
from dataclasses import asdict, dataclass, field

import psycopg

FENCE_TABLE = "drill_fence_probe"
CONNECT_TIMEOUT_SECONDS = 1  # a fresh probe's connection: a frozen or stopped node is passed at once
PROBE_EVERY_SECONDS = 0.1  # how often a fresh probe connects after the thaw
ANSWER_WAIT_SECONDS = 10.0  # at the end, how long an unanswered write is still waited for


def fence_table_create(dsn: str) -> None:
    """The probes' table, in the drill's database: a write of ours, not the product's."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {FENCE_TABLE} (token text PRIMARY KEY, probe text NOT NULL,"
            " written_at timestamptz NOT NULL DEFAULT clock_timestamp())"
        )


@dataclass
class FenceWrite:
    probe: str  # "in flight" (connected before the freeze) or "after thaw"
    sent_at: float  # time.monotonic()
    token: str = field(default_factory=lambda: uuid.uuid4().hex)  # the row's key
    outcome: str = "unanswered"  # "confirmed", "refused" (an error, or no connection) or "unanswered"
    seconds_to_answer: float | None = None
    error: str = ""


@dataclass
class FenceResult:
    writes: list[FenceWrite] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(write.outcome == outcome for write in self.writes)

    def summary(self, thawed_at: float) -> dict:
        """For the report: the writes by outcome, each confirmed one with its seconds from the
        thaw (negative: sent while the node was frozen)."""

        def shown(write: FenceWrite) -> dict:
            return asdict(write) | {"sent_at": round(write.sent_at - thawed_at, 2)}

        confirmed = [shown(write) for write in self.writes if write.outcome == "confirmed"]
        return {
            "writes": len(self.writes),
            "confirmed": len(confirmed),
            "refused": self.count("refused"),
            "unanswered": self.count("unanswered"),
            "confirmed_writes": confirmed,
            "in_flight": next((shown(w) for w in self.writes if w.probe == "in flight"), None),
            "errors": sorted({write.error for write in self.writes if write.error})[:10],
        }


class FenceProbe:
    def __init__(self, host: str, port: int, database: str):
        self.conninfo = f"host={host} port={port} dbname={database} user=postgres"
        self.result = FenceResult()
        self._threads: list[threading.Thread] = []
        self._connected: psycopg.Connection | None = None

    def connect_before_freeze(self) -> None:
        self._connected = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)

    def write_in_flight(self) -> None:
        """The connected client's write, sent while the node is frozen: it waits for the thaw."""
        assert self._connected is not None, "connect_before_freeze() first"
        self._start(FenceWrite("in flight", time.monotonic()), self._connected)

    def probe_until(self, done: threading.Event) -> None:
        """New connections to the node, one write each, until `done` is set."""
        while not done.is_set():
            write = FenceWrite("after thaw", time.monotonic())
            try:
                connection = psycopg.connect(
                    self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS
                )
            except psycopg.Error as exc:
                write.outcome, write.error = "refused", _first_line(exc)
                self.result.writes.append(write)
            else:
                self._start(write, connection)
            done.wait(PROBE_EVERY_SECONDS)

    def finish(self) -> FenceResult:
        """Wait (bounded) for the writes still unanswered; those that stay so are reported."""
        deadline = time.monotonic() + ANSWER_WAIT_SECONDS
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        return self.result

    def _start(self, write: FenceWrite, connection: psycopg.Connection) -> None:
        self.result.writes.append(write)
        thread = threading.Thread(target=_write, args=(write, connection), daemon=True)
        self._threads.append(thread)
        thread.start()


def _write(write: FenceWrite, connection: psycopg.Connection) -> None:
    started = time.monotonic()
    try:
        connection.execute(
            f"INSERT INTO {FENCE_TABLE} (token, probe) VALUES (%s, %s)", [write.token, write.probe]
        )
    except psycopg.Error as exc:
        write.outcome, write.error = "refused", _first_line(exc)
    else:
        write.outcome = "confirmed"
    finally:
        write.seconds_to_answer = round(time.monotonic() - started, 2)
        connection.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def fence_lost(dsn: str, fence: dict) -> None:
    """Adds to a freeze's fence summary which confirmed writes the cluster no longer has."""
    confirmed = [write["token"] for write in fence["confirmed_writes"]]
    with psycopg.connect(dsn) as connection:
        kept = {
            row[0]
            for row in connection.execute(
                f"SELECT token FROM {FENCE_TABLE} WHERE token = ANY(%s)", [confirmed]
            )
        }
    fence["confirmed_then_lost"] = len(set(confirmed) - kept)
