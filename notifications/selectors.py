"""Reads of the email feature that more than one screen needs: the API, the status command,
/metrics, the dashboard and the mail provider's page ask the same questions the same way."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.contrib.postgres.expressions import ArraySubquery
from django.core.exceptions import ValidationError
from django.db.models import Count, JSONField, Min, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import JSONObject

from apiauth.models import ApiToken
from messaging.models import OutboxEvent
from messaging.registry import event_types
from messaging.selectors import outbox_event_latest
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification, ProviderCircuit, Suppression
from orders.events import AGGREGATE as ORDER_AGGREGATE
from orders.models import Order, OrderVersion, Refund, Shipment, ShipmentEvent


def order_get_with_notifications(*, order_id: UUID, api_token: ApiToken | None) -> Order | None:
    """An order with its emails (`order.notifications`, by kind), for the API: only if
    `api_token`'s client placed it (None: only an order placed without a token). Another
    client's order is None, as a missing one is (orders/changes.py says why)."""
    current_content = OrderVersion.objects.filter(order=OuterRef("pk"), number=OuterRef("content_version"))
    return (
        Order.objects.placed_by_client_of(api_token)
        # what was bought, shipped and refunded, in the same query: None, [] and [] for an order
        # placed with the short body, nothing shipped or refunded
        .annotate(content=Subquery(current_content.values("content")[:1], output_field=JSONField()))
        .annotate(shipment_list=ArraySubquery(_parcels_shown()), refund_list=ArraySubquery(_refunds_shown()))
        .prefetch_related(Prefetch("notifications", queryset=Notification.objects.order_by("kind")))
        .filter(id=order_id)
        .first()
    )


def _parcels_shown() -> QuerySet[Shipment, Any]:
    """The order's parcels as the API shows them, each with its carrier's news, oldest first."""
    news = (
        ShipmentEvent.objects.filter(shipment=OuterRef("pk"))
        .order_by("happened_at", "created_at")
        .values(
            json=JSONObject(
                event_id="shop_event_id",
                status="status",
                happened_at="happened_at",
                message="message",
                became_status="became_status",
                email_event="email_event",
                note="note",
                created_at="created_at",
            )
        )
    )
    return (
        Shipment.objects.filter(order=OuterRef("pk"))
        .order_by("created_at")
        .values(
            json=JSONObject(
                id="id",
                shipment_id="shop_shipment_id",
                carrier="carrier",
                tracking_number="tracking_number",
                tracking_url="tracking_url",
                lines="lines",
                created_at="created_at",
                status="progress",
                status_at="progress_at",
                events=ArraySubquery(news),
            )
        )
    )


def _refunds_shown() -> QuerySet[Refund, Any]:
    return (
        Refund.objects.filter(order=OuterRef("pk"))
        .order_by("created_at")
        .values(
            json=JSONObject(
                id="id",
                refund_id="shop_refund_id",
                amount="amount_minor",
                reason="reason",
                lines="lines",
                in_cancellation="in_cancellation",
                created_at="created_at",
            )
        )
    )


def notification_counts_by_status() -> dict[str, int]:
    return dict(Notification.objects.values_list("status").annotate(n=Count("id")).order_by("status"))


def notification_counts_by_kind_and_status() -> list[tuple[str, str, int]]:
    return list(Notification.objects.values_list("kind", "status").annotate(n=Count("id")))


def notification_counts_sent_by_provider() -> list[tuple[str, int]]:
    """Sent emails by the provider that took them (MAIL_PROVIDER or its fallback)."""
    return list(
        Notification.objects.filter(status=Notification.Status.SENT)
        .values_list("provider")
        .annotate(n=Count("id"))
    )


def notification_counts_by_kind_and_delivery_status() -> list[tuple[str, str, int]]:
    """Sent emails by what the provider's events said since ("" = no event yet)."""
    return list(
        Notification.objects.filter(status=Notification.Status.SENT)
        .values_list("kind", "delivery_status")
        .annotate(n=Count("id"))
    )


def suppressed_address_count() -> int:
    return Suppression.objects.filter(lifted_at__isnull=True).count()


def notification_oldest_unfinished_since() -> datetime | None:
    """When the longest-waiting pending or sending email last changed status."""
    return Notification.objects.filter(status__in=Notification.UNFINISHED_STATUSES).aggregate(
        oldest=Min("status_changed_at")
    )["oldest"]


def notification_outbox_event(notification: Notification) -> OutboxEvent | None:
    """The outbox event that asks for this notification (the newest, if there were several),
    unless retention has removed it."""
    types = [name for name, kind in EMAIL_KIND_OF_EVENT.items() if kind == notification.kind]
    return outbox_event_latest(aggregate_id=notification.event_aggregate_id, event_types=types)


def notification_for_event(event_type: str, aggregate_id: UUID | str) -> Notification | None:
    """The email an event calls for: of the order, for an event about the order; of the
    shipment, for an event about a shipment. None for an event that is no email's, or an
    email not recorded (yet)."""
    kind = EMAIL_KIND_OF_EVENT.get(event_type)
    registered = event_types().get(event_type)
    if kind is None or registered is None:
        return None
    emails = Notification.objects.filter(kind=kind).select_related("order")
    try:
        if registered.aggregate == ORDER_AGGREGATE:
            return emails.filter(order_id=aggregate_id, subject_id__isnull=True).first()
        return emails.filter(subject_id=aggregate_id).first()
    except ValidationError:  # not a UUID
        return None


def notification_counts_per_kind_since(moment: datetime) -> list[dict[str, Any]]:
    """Per kind, emails accepted since `moment`, how many reached a final state, how many
    were sent, and what the provider's events said of them."""
    return list(
        Notification.objects.filter(created_at__gte=moment)
        .values("kind")
        .annotate(
            accepted=Count("id"),
            completed=Count("id", filter=Q(status__in=Notification.FINAL_STATUSES)),
            sent=Count("id", filter=Q(status=Notification.Status.SENT)),
            waiting=Count("id", filter=Q(status__in=Notification.NEEDS_PERSON_STATUSES)),
            delivered=Count("id", filter=Q(delivery_status=Notification.DeliveryStatus.DELIVERED)),
            bounced=Count("id", filter=Q(delivery_status=Notification.DeliveryStatus.BOUNCED)),
            complained=Count("id", filter=Q(delivery_status=Notification.DeliveryStatus.COMPLAINED)),
        )
        .order_by("kind")
    )


def notification_latencies_sent_since(
    moment: datetime, *, limit: int = 5000
) -> list[tuple[datetime, datetime]]:
    """(created_at, sent_at) of emails sent since `moment`, oldest first."""
    rows = (
        Notification.objects.filter(status=Notification.Status.SENT, sent_at__gte=moment)
        .values_list("created_at", "sent_at")
        .order_by("sent_at")[:limit]
    )
    # sent_at is nullable, but never NULL in these rows (sent_at__gte).
    return [(created_at, sent_at) for created_at, sent_at in rows if sent_at is not None]


@dataclass(frozen=True)
class CircuitStatus:
    """The provider's circuit breaker as people read it (the mail provider's page, `manage.py
    provider`, the dashboard) and /metrics reports it."""

    provider: str
    state: str
    failures: int
    retry_at: datetime | None
    paused_by: str
    paused_reason: str
    since: datetime | None  # when it last changed
    waiting_emails: int  # pending emails whose reason is the circuit (or the pause)
    down_since: datetime | None = None  # since when it takes no emails (None: it does)
    up_since: datetime | None = None  # when it last came back (None: never down)

    def describe(self) -> str:
        if self.state == ProviderCircuit.State.CLOSED:
            tail = f", {self.failures} transient failure(s) in a row" if self.failures else ""
            return f"{self.provider}: closed, emails go out{tail}"
        if self.state == ProviderCircuit.State.PAUSED:
            return f"{self.provider}: paused by {self.paused_by} ({self.paused_reason}); emails wait"
        if self.state == ProviderCircuit.State.OPEN:
            return (
                f"{self.provider}: open after {self.failures} failures in a row; one probe call at "
                f"{self.retry_at:%Y-%m-%d %H:%M:%S} UTC decides"
            )
        return f"{self.provider}: half open, a probe call is testing the provider"


def provider_circuit_status(provider: str) -> CircuitStatus:
    circuit = ProviderCircuit.objects.filter(provider=provider).first() or ProviderCircuit(provider=provider)
    # Counted only while the circuit holds emails: every scrape and page asks for both providers.
    closed = circuit.state == ProviderCircuit.State.CLOSED
    waiting = (
        0
        if closed
        else Notification.objects.filter(
            status=Notification.Status.PENDING, last_error__startswith="The mail provider"
        ).count()
    )
    return CircuitStatus(
        provider=provider,
        state=circuit.state,
        failures=circuit.failures,
        retry_at=circuit.retry_at,
        paused_by=circuit.paused_by,
        paused_reason=circuit.paused_reason,
        since=circuit.updated_at,
        waiting_emails=waiting,
        down_since=circuit.down_since,
        up_since=circuit.up_since,
    )
