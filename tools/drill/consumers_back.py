"""How soon the workers and relays that lost their broker node took messages again, read from
their logs once the drill has settled.

A consumer connected to a killed node reconnects to the next node of its list, and then runs
its start-up steps before it takes a message; a slow step there (Celery's delayed-delivery
set-up tried the dead node for 6 to 9 s, mingle waited a second for other workers) delays
every email that worker would have sent, which commit → confirmed in the queue does not show.
For each kill: each process that logged the connection's loss within LOST_WITHIN_SECONDS of
it, the seconds from the kill to its next "Connected to" line and to its first task message
received after it (None: none in its log)."""

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

LOST_WITHIN_SECONDS = 3.0
LOG_NAMES = ("worker*.log", "relay*.log")
_LOST = "Connection to broker lost"
_CONNECTED = "Connected to amqp"
_RECEIVED = "] received"  # celery.worker.strategy: "Task <name>[<id>] received"


@dataclass(frozen=True)
class LogLine:
    at: datetime
    process: int | None
    message: str


@dataclass(frozen=True)
class ConsumerBack:
    log: str  # the log's file name: worker0, relay1, …
    process: int | None
    seconds_to_connected: float | None
    seconds_to_first_message: float | None


def consumers_back_after_kills(workdir: Path, kills: list[dict]) -> None:
    """Adds `consumers_back` to each kill: a ConsumerBack (as a dict) per process that lost it."""
    logs = {path.stem: list(_log_lines(path)) for name in LOG_NAMES for path in sorted(workdir.glob(name))}
    for kill in kills:
        killed = datetime.fromisoformat(kill["killed_at"])
        kill["consumers_back"] = [
            asdict(back) for name, lines in logs.items() for back in consumers_back(name, lines, killed)
        ]


def consumers_back(name: str, lines: list[LogLine], killed: datetime) -> Iterator[ConsumerBack]:
    """The processes of one log that lost their connection just after `killed`, and when each
    was connected and took a message again."""
    for lost in lines:
        if _LOST not in lost.message or not 0 <= (lost.at - killed).total_seconds() <= LOST_WITHIN_SECONDS:
            continue
        after = [line for line in lines if line.process == lost.process and line.at > lost.at]
        connected = next((line.at for line in after if _CONNECTED in line.message), None)
        received = next((line.at for line in after if _RECEIVED in line.message), None)
        yield ConsumerBack(name, lost.process, _seconds(killed, connected), _seconds(killed, received))


def _seconds(killed: datetime, at: datetime | None) -> float | None:
    return None if at is None else round((at - killed).total_seconds(), 2)


def _log_lines(path: Path) -> Iterator[LogLine]:
    """The JSON lines of a process log (observability/logs.py: "time" in the machine's local
    time, as logging writes it, "process", "message"); anything else in it (a traceback's
    lines) is skipped."""
    with path.open(encoding="utf-8", errors="replace") as log:
        for raw in log:
            try:
                record = json.loads(raw)
                at = datetime.strptime(record["time"], "%Y-%m-%d %H:%M:%S,%f").astimezone(UTC)
            except (ValueError, KeyError, TypeError):
                continue
            yield LogLine(at, record.get("process"), str(record.get("message", "")))
