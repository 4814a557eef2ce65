"""What the outage drill reads after the run, with plain SQL, the simulator's control API and
RabbitMQ: never from the code under test."""

from dataclasses import dataclass, field
from datetime import datetime

import psycopg
import requests
from kombu import Connection

from messaging.broker.channel import amqp_channel, queue_counts
from tools.drill.harness import WORK_QUEUES
from tools.drill.sql import one_row


@dataclass
class DatabaseFacts:
    statuses: dict[str, int] = field(default_factory=dict)  # notifications by status
    backlog_at_outage_end: int = 0  # emails of orders placed by then, sent after it
    drain_seconds: float | None = None  # from the outage's end to the last of those sent


def database_facts(database_dsn: str, *, outage_end: float) -> DatabaseFacts:
    with psycopg.connect(database_dsn) as connection:
        statuses = connection.execute(
            "SELECT status, count(*) FROM notifications_notification GROUP BY status"
        ).fetchall()
        backlog, last_sent = one_row(
            connection.execute(
                "SELECT count(*), extract(epoch FROM max(sent_at)) FROM notifications_notification "
                "WHERE created_at <= to_timestamp(%(end)s) AND sent_at > to_timestamp(%(end)s)",
                {"end": outage_end},
            )
        )
    return DatabaseFacts(
        statuses=dict(sorted(statuses)),
        backlog_at_outage_end=backlog,
        drain_seconds=None if last_sent is None else round(float(last_sent) - outage_end, 1),
    )


def dead_letter_depths(broker_url: str) -> dict[str, int]:
    """Messages in every work queue's dead-letter queue (ready ones: nothing consumes them)."""
    with Connection(broker_url, connect_timeout=5) as connection:
        channel = amqp_channel(connection)
        depths = {}
        for queue in WORK_QUEUES:
            ready, _ = queue_counts(channel, f"{queue}.dlq")
            depths[f"{queue}.dlq"] = ready
    return depths


def provider_arrivals(mailsim_url: str) -> list[float]:
    """When each send request reached the simulator, in seconds since the epoch."""
    log = requests.get(f"{mailsim_url}/_sim/requests", timeout=60).json()["requests"]
    return [datetime.fromisoformat(entry["at"]).timestamp() for entry in log]
