"""The product's Prometheus metrics that processes count as things happen.

Correct with several processes: gunicorn workers and Celery pool children each write their
own files under PROMETHEUS_MULTIPROC_DIR (set by bin/web, bin/worker, bin/relay), and
/metrics adds them up. Figures that live in the database or the broker (backlog, statuses,
queue depths) are read when /metrics is scraped instead, by the collectors that settings
METRICS_COLLECTORS names (messaging/metrics.py, notifications/metrics.py).
"""

from datetime import datetime

from django.utils import timezone
from prometheus_client import CollectorRegistry, Counter, Histogram

# Our own registry: in a process without PROMETHEUS_MULTIPROC_DIR (a test, a shell) the
# counts stay here and /metrics reads them from it.
APP_REGISTRY = CollectorRegistry(auto_describe=True)

RELAY_PUBLISHES = Counter(
    "orders_relay_publishes",
    "Outbox events the relay published, by result: confirmed, returned (unroutable), nacked, "
    "unconfirmed (no confirm in time) or broker_error.",
    ["result"],
    registry=APP_REGISTRY,
)
PROVIDER_CALLS = Counter(
    "orders_provider_calls",
    "Calls to the mail provider by outcome class: accepted, transient, permanent, unknown, "
    "in_flight, key_conflict.",
    ["provider", "outcome"],
    registry=APP_REGISTRY,
)
PROVIDER_CALL_SECONDS = Histogram(
    "orders_provider_call_seconds",
    "Duration of one call to the mail provider.",
    ["provider"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
    registry=APP_REGISTRY,
)
COMMIT_TO_SENT_SECONDS = Histogram(
    "orders_commit_to_sent_seconds",
    "From the commit of the change that called for an email to the provider's acceptance of it.",
    ["kind"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200),
    registry=APP_REGISTRY,
)
NOTIFICATIONS_FINISHED = Counter(
    "orders_notifications_finished",
    "Notifications that reached a final state, by kind and state.",
    ["kind", "status"],
    registry=APP_REGISTRY,
)
DEAD_LETTERS = Counter(
    "orders_dead_letters",
    "Messages our workers dead-lettered, by work queue and class.",
    ["queue", "error_class"],
    registry=APP_REGISTRY,
)
ORDERS_ACCEPTED = Counter(
    "orders_api_orders_accepted",
    "Orders the API accepted (replayed: a retried POST that found its order).",
    ["replayed"],
    registry=APP_REGISTRY,
)
PLATFORM_DELIVERIES = Counter(
    "orders_platform_deliveries",
    "Webhook deliveries from connected shops' platforms, by outcome: used, duplicate, stale (older "
    "than what was applied), waiting (for its order), topic_unused, for_a_person, could_not_use.",
    ["platform", "outcome"],
    registry=APP_REGISTRY,
)


def seconds_since(moment: datetime | None) -> float:
    """The age a gauge shows: 0 when there is nothing to be old."""
    return (timezone.now() - moment).total_seconds() if moment else 0.0
