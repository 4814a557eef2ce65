"""The email feature's figures, read when /metrics is scraped (settings METRICS_COLLECTORS)."""

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

from notifications.models import ProviderCircuit
from notifications.selectors import (
    notification_counts_by_kind_and_delivery_status,
    notification_counts_by_kind_and_status,
    notification_counts_sent_by_provider,
    notification_oldest_unfinished_since,
    suppressed_address_count,
)
from notifications.sending_now import SendingNow, sending_now
from observability.metrics import seconds_since


class NotificationCollector:
    def collect(self) -> Iterator[Metric]:
        by_status = GaugeMetricFamily(
            "orders_notifications", "Notifications now, by kind and status.", labels=["kind", "status"]
        )
        for kind, status, count in notification_counts_by_kind_and_status():
            by_status.add_metric([kind, status], count)
        yield by_status
        by_provider = GaugeMetricFamily(
            "orders_notifications_sent_by_provider",
            "Sent emails now, by the mail provider that took them.",
            labels=["provider"],
        )
        for provider, count in notification_counts_sent_by_provider():
            by_provider.add_metric([provider or "unknown"], count)
        yield by_provider
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
        yield from _providers(sending_now())
        yield GaugeMetricFamily(
            "orders_oldest_unfinished_notification_age_seconds",
            "Age of the oldest notification still pending or sending (0 when there is none).",
            seconds_since(notification_oldest_unfinished_since()),
        )


def _providers(now: SendingNow) -> Iterator[Metric]:
    """Each provider's circuit breaker (the fallback's too), and which one takes new emails."""
    circuit = GaugeMetricFamily(
        "orders_provider_circuit_state",
        "Each mail provider's circuit breaker: 1 for its current state (closed, open, half_open, paused).",
        labels=["provider", "state"],
    )
    sending = GaugeMetricFamily(
        "orders_mail_provider_sending",
        "1 for the mail provider that takes new emails now (MAIL_PROVIDER, or its fallback "
        "while the first cannot); every provider 0 while none does.",
        labels=["provider", "role"],
    )
    for role, status in (("first", now.first), ("fallback", now.fallback)):
        if status is None:
            continue
        for state in ProviderCircuit.State.values:
            circuit.add_metric([status.provider, state], 1 if status.state == state else 0)
        sending.add_metric([status.provider, role], 1 if now.provider == status.provider else 0)
    yield circuit
    yield sending
