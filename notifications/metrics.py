"""The email feature's figures, read when /metrics is scraped (settings METRICS_COLLECTORS)."""

from collections.abc import Iterator

from django.conf import settings
from prometheus_client.core import GaugeMetricFamily, Metric

from notifications.models import ProviderCircuit
from notifications.selectors import (
    notification_counts_by_kind_and_delivery_status,
    notification_counts_by_kind_and_status,
    notification_oldest_unfinished_since,
    provider_circuit_status,
    suppressed_address_count,
)
from observability.metrics import seconds_since


class NotificationCollector:
    def collect(self) -> Iterator[Metric]:
        by_status = GaugeMetricFamily(
            "orders_notifications", "Notifications now, by kind and status.", labels=["kind", "status"]
        )
        for kind, status, count in notification_counts_by_kind_and_status():
            by_status.add_metric([kind, status], count)
        yield by_status
        by_delivery = GaugeMetricFamily(
            "orders_notifications_delivery",
            "Sent emails by the provider's delivery status (none = no event yet).",
            labels=["kind", "delivery_status"],
        )
        for kind, delivery_status, count in notification_counts_by_kind_and_delivery_status():
            by_delivery.add_metric([kind, delivery_status or "none"], count)
        yield by_delivery
        yield GaugeMetricFamily(
            "orders_suppressed_addresses",
            "Addresses on the suppression list now.",
            suppressed_address_count(),
        )
        circuit = GaugeMetricFamily(
            "orders_provider_circuit_state",
            "The mail provider's circuit breaker: 1 for its current state (closed, open, half_open, paused).",
            labels=["provider", "state"],
        )
        circuit_now = provider_circuit_status(settings.MAIL_PROVIDER)
        for state in ProviderCircuit.State.values:
            circuit.add_metric([circuit_now.provider, state], 1 if circuit_now.state == state else 0)
        yield circuit
        yield GaugeMetricFamily(
            "orders_oldest_unfinished_notification_age_seconds",
            "Age of the oldest notification still pending or sending (0 when there is none).",
            seconds_since(notification_oldest_unfinished_since()),
        )
