"""The backbone's figures, read when /metrics is scraped (settings METRICS_COLLECTORS): the
outbox backlog from the database, and the queues (depths, consumers, redeliveries, the DLQs)
from RabbitMQ's management API."""

import logging
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from django.conf import settings
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from infra.rabbitmq import RabbitAdmin, vhost_of
from messaging.selectors import outbox_backlog
from observability.metrics import seconds_since

logger = logging.getLogger(__name__)
BROKER_CACHE_SECONDS = 5.0  # the management API refreshes its figures every 5 s anyway
_broker_cache: tuple[float, list[dict[str, Any]] | None] = (0.0, None)


class OutboxCollector:
    """The outbox backlog and the age of its oldest event."""

    def collect(self) -> Iterator[Metric]:
        backlog = outbox_backlog()
        yield GaugeMetricFamily(
            "orders_outbox_backlog", "Outbox events not yet confirmed by the broker.", backlog.unpublished
        )
        yield GaugeMetricFamily(
            "orders_outbox_oldest_unpublished_age_seconds",
            "Age of the oldest unpublished outbox event (0 when there is none).",
            seconds_since(backlog.oldest_created_at),
        )


class BrokerQueuesCollector:
    """Depths, consumers and redeliveries of our queues, from RabbitMQ's management API."""

    def collect(self) -> Iterator[Metric]:
        queues = _broker_queues()
        yield GaugeMetricFamily(
            "orders_broker_scrape_ok",
            "1 if RabbitMQ's management API answered.",
            1 if queues is not None else 0,
        )
        if queues is None:
            return
        families = {
            "ready": GaugeMetricFamily(
                "orders_queue_messages_ready", "Messages ready in a queue (a DLQ's depth).", labels=["queue"]
            ),
            "unacked": GaugeMetricFamily(
                "orders_queue_messages_unacked", "Messages delivered, not yet acked.", labels=["queue"]
            ),
            "consumers": GaugeMetricFamily(
                "orders_queue_consumers", "Consumers of a queue (0: nobody works it).", labels=["queue"]
            ),
        }
        redeliveries = CounterMetricFamily(
            "orders_queue_redeliveries", "Messages delivered again by the broker.", labels=["queue"]
        )
        for queue in queues:
            name = queue["name"]
            families["ready"].add_metric([name], queue.get("messages_ready", 0))
            families["unacked"].add_metric([name], queue.get("messages_unacknowledged", 0))
            families["consumers"].add_metric([name], queue.get("consumers", 0))
            redeliveries.add_metric([name], (queue.get("message_stats") or {}).get("redeliver", 0))
        yield from families.values()
        yield redeliveries


def _broker_queues() -> list[dict[str, Any]] | None:
    global _broker_cache
    fetched_at, queues = _broker_cache
    if time.monotonic() - fetched_at < BROKER_CACHE_SECONDS:
        return queues
    vhost = quote(vhost_of(settings.CELERY_BROKER_URL), safe="")
    base = settings.RABBITMQ_MANAGEMENT_URL.rstrip("/")
    try:
        queues = [q for q in RabbitAdmin(base, timeout=3).queues(vhost) if q["name"].startswith("orders.")]
    except Exception as exc:
        logger.warning("RabbitMQ management API unreachable for metrics: %s", exc)
        queues = None
    _broker_cache = (time.monotonic(), queues)
    return queues
