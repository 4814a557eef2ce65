"""Figures read when /metrics is scraped: from the database (backlog, statuses, ages) and
from RabbitMQ's management API (queue depths, consumers, redeliveries, the DLQs)."""

import logging
import time
from urllib.parse import quote

from django.conf import settings
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from infra.rabbitmq import vhost_of

logger = logging.getLogger(__name__)
BROKER_CACHE_SECONDS = 5.0  # the management API refreshes its figures every 5 s anyway
_broker_cache: tuple[float, list[dict] | None] = (0.0, None)


class DatabaseCollector:
    def collect(self):
        from notifications.models import Notification, OutboxEvent

        now = timezone.now()
        backlog = OutboxEvent.objects.filter(published_at__isnull=True).aggregate(
            n=Count("id"), oldest=Min("created_at")
        )
        yield GaugeMetricFamily(
            "orders_outbox_backlog", "Outbox events not yet confirmed by the broker.", backlog["n"]
        )
        yield GaugeMetricFamily(
            "orders_outbox_oldest_unpublished_age_seconds",
            "Age of the oldest unpublished outbox event (0 when there is none).",
            _age(now, backlog["oldest"]),
        )
        by_status = GaugeMetricFamily(
            "orders_notifications", "Notifications now, by kind and status.", labels=["kind", "status"]
        )
        for kind, status, count in Notification.objects.values_list("kind", "status").annotate(n=Count("id")):
            by_status.add_metric([kind, status], count)
        yield by_status
        oldest = Notification.objects.filter(status__in=["pending", "sending"]).aggregate(
            m=Min("status_changed_at")
        )["m"]
        yield GaugeMetricFamily(
            "orders_oldest_unfinished_notification_age_seconds",
            "Age of the oldest notification still pending or sending (0 when there is none).",
            _age(now, oldest),
        )


class BrokerCollector:
    def collect(self):
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


def _broker_queues() -> list[dict] | None:
    global _broker_cache
    fetched_at, queues = _broker_cache
    if time.monotonic() - fetched_at < BROKER_CACHE_SECONDS:
        return queues
    vhost = quote(vhost_of(settings.CELERY_BROKER_URL), safe="")
    base = settings.RABBITMQ_MANAGEMENT_URL.rstrip("/")
    try:
        from infra.rabbitmq import RabbitAdmin

        queues = [q for q in RabbitAdmin(base, timeout=3).queues(vhost) if q["name"].startswith("orders.")]
    except Exception as exc:
        logger.warning("RabbitMQ management API unreachable for metrics: %s", exc)
        queues = None
    _broker_cache = (time.monotonic(), queues)
    return queues


def _age(now, moment) -> float:
    return (now - moment).total_seconds() if moment else 0.0
