"""A parcel's journey after it left the shop: the carrier's news (in transit, out for delivery,
delivered, a delivery attempted, a failure), passed on by the shop or its platform, each stored
once as a ShipmentEvent with what it did.

What the customer is told, decided per piece of news (`progress_decide`, pure):
- The parcel's status is its newest news by the time the carrier gives it, so news that arrives
  late (platforms resend, and do not keep order) never takes the parcel back. "Delivered" is the
  end: it is the status whatever its time, and nothing after it changes the status.
- "Out for delivery", "delivered" and a failed delivery (attempted, or failed) each send at most
  one email per parcel, and only as the parcel's new status: late or repeated news sends none.
  "In transit" changes only what the API and the admin show, unless settings
  PARCEL_IN_TRANSIT_EMAIL makes it an email too: then at most one per parcel, and none once the
  customer was sent news of a later step (out for delivery, a failed delivery, delivered). The
  carrier's time still orders the parcel's status, so a parcel back at the depot after a failed
  attempt is in transit again; but a customer who read "out for delivery" would read "in
  transit" as a step back, not as news.
- The email follows the parcel's own "shipped" email (notifications/delivery/rules.py), and
  "in transit", "out for delivery" or a failed delivery is skipped if the parcel was delivered
  before its turn: the customer never reads "out for delivery" after "delivered". "In transit"
  is skipped too if news of a later step recorded its email before its turn.
- An erased order takes no news (orders/personal_data.py).

Idempotent by the news's own id (per parcel): sent again with the same body, nothing more
happens; with another body, it is refused. Every change takes the order's row lock first, as
the parcel's creation and every claim of its emails do."""

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apiauth.models import ApiToken
from infra.storable_text import unstorable_character
from messaging.outbox import event_record
from orders.changes import order_lock
from orders.content import CONTENT_ERASED, SHORT_TEXT, content_erased_message
from orders.events import (
    PARCEL_DELIVERED,
    PARCEL_DELIVERY_FAILED,
    PARCEL_IN_TRANSIT,
    PARCEL_OUT_FOR_DELIVERY,
)
from orders.models import Order, ParcelStatus, Shipment, ShipmentEvent

# The news a customer gets an email of, and the event (the email) each records. A delivery
# attempted and a delivery failed are one email: either way the parcel did not arrive. "In
# transit" only while PARCEL_IN_TRANSIT_EMAIL is on.
EVENT_OF_STATUS = {
    ParcelStatus.IN_TRANSIT: PARCEL_IN_TRANSIT,
    ParcelStatus.OUT_FOR_DELIVERY: PARCEL_OUT_FOR_DELIVERY,
    ParcelStatus.DELIVERED: PARCEL_DELIVERED,
    ParcelStatus.ATTEMPTED_DELIVERY: PARCEL_DELIVERY_FAILED,
    ParcelStatus.FAILURE: PARCEL_DELIVERY_FAILED,
}
# The emails of the steps after "in transit": once one is recorded, "in transit" is old news.
LATER_STEP_EVENTS = frozenset({PARCEL_OUT_FOR_DELIVERY, PARCEL_DELIVERED, PARCEL_DELIVERY_FAILED})
# What a shop may report: every status but the one the parcel has before any news.
REPORTED_STATUSES = tuple(status for status in ParcelStatus if status != ParcelStatus.SHIPPED)
MESSAGE_MAX = 200  # ShipmentEvent.message's length
# How far ahead of our clock a carrier's time may be (clocks differ a little). News dated later
# is refused: kept as the parcel's newest, it would make every real piece of news after it
# "older" and silence the parcel's emails.
FUTURE_SLACK = timedelta(hours=1)


def happened_at_problem(happened_at: datetime, now: datetime | None = None) -> str:
    """Why a piece of news may not carry this time, or "": the one rule for the API and the
    platforms' news."""
    now = now or timezone.now()
    try:
        happened_at.astimezone(UTC)
    except OverflowError:  # year 1 with an offset east of UTC: before the calendar's start in UTC
        return f"The news is dated {happened_at.isoformat()}, outside the times this service can keep."
    if happened_at > now + FUTURE_SLACK:
        minutes = int(FUTURE_SLACK.total_seconds() // 60)
        return (
            f"The news is dated {happened_at.isoformat()}, more than {minutes} minutes after our "
            "clock: send the time the carrier gave, with its offset."
        )
    return ""


AFTER_DELIVERY_NOTE = "The parcel was delivered before: later news changes nothing and sends no email."
OLDER_NOTE = "Older than news of the parcel kept before: it changes nothing and sends no email."
ALREADY_TOLD_NOTE = "The customer was already sent this email for this parcel: at most one of each."
SHOWN_ONLY_NOTE = "Shown in the API and the admin; no email is sent for it."
LATER_STEP_TOLD_NOTE = (
    "The customer was already sent news of a later step of the parcel's journey: "
    "in transit is no news to them, and sends no email."
)


@dataclass(frozen=True)
class ProgressDecision:
    becomes_status: bool  # the parcel's status is this news's from now on
    event_type: str  # the email's event to record, "" for none
    note: str  # why no email, "" when one is recorded


def progress_decide(
    *,
    current: str,
    current_at: datetime | None,
    status: str,
    happened_at: datetime,
    emailed: frozenset[str],
    in_transit_email: bool,
) -> ProgressDecision:
    """What one piece of news does to a parcel whose status is `current` (since `current_at`,
    None before any news), given the email event types already recorded for it (`emailed`);
    `in_transit_email`: settings PARCEL_IN_TRANSIT_EMAIL."""
    if current == ParcelStatus.DELIVERED:
        return ProgressDecision(False, "", AFTER_DELIVERY_NOTE)
    late = current_at is not None and happened_at < current_at
    if late and status != ParcelStatus.DELIVERED:
        return ProgressDecision(False, "", OLDER_NOTE)
    event_type = EVENT_OF_STATUS.get(ParcelStatus(status), "")
    if event_type == PARCEL_IN_TRANSIT and not in_transit_email:
        event_type = ""
    if not event_type:
        return ProgressDecision(True, "", SHOWN_ONLY_NOTE)
    if event_type in emailed:
        return ProgressDecision(True, "", ALREADY_TOLD_NOTE)
    if event_type == PARCEL_IN_TRANSIT and emailed & LATER_STEP_EVENTS:
        return ProgressDecision(True, "", LATER_STEP_TOLD_NOTE)
    return ProgressDecision(True, event_type, "")


class ParcelNewsRefused(Exception):
    """The news does not fit (404 or 409): `code` says why in a word the client can branch on."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ParcelNews:
    """One piece of a carrier's news, as the shop or its platform sends it."""

    event_id: str
    status: str  # one of REPORTED_STATUSES
    happened_at: datetime
    message: str = ""


@dataclass(frozen=True)
class ParcelNewsRecording:
    event: ShipmentEvent
    replayed: bool  # this news was sent before: nothing new happened


@transaction.atomic(durable=True)
def parcel_news_create(
    *, order_id: UUID, api_token: ApiToken | None, shop_shipment_id: str, news: ParcelNews
) -> ParcelNewsRecording:
    """The news of the order's parcel named by the shop's shipment id, stored with its email's
    event (if it calls for one) in one transaction, under the order's row lock. OrderNotFound
    for an order the token may not see; ParcelNewsRefused for a parcel the order does not have,
    or an event id sent before with other content."""
    order = order_lock(order_id=order_id, api_token=api_token)
    shipment = None
    # A path names the parcel: an id no shipment can have (too long, a NUL) is none of them.
    if len(shop_shipment_id) <= SHORT_TEXT and unstorable_character(shop_shipment_id) is None:
        shipment = Shipment.objects.filter(order=order, shop_shipment_id=shop_shipment_id).first()
    if shipment is None:
        raise ParcelNewsRefused(
            "shipment_not_found",
            f"Order {order.number or order.id} has no shipment {shop_shipment_id}: "
            "announce the parcel first.",
        )
    return parcel_news_record(order, shipment, news)


def parcel_news_record(order: Order, shipment: Shipment, news: ParcelNews) -> ParcelNewsRecording:
    """`parcel_news_create` for an order the caller holds locked, in the caller's transaction.
    An erased order takes no news, not even one sent before: the carrier's words are personal
    data its erasure removed, and what it stored of the earlier one cannot be compared."""
    if order.erased_at is not None:
        raise ParcelNewsRefused(CONTENT_ERASED, content_erased_message(str(order.number or order.id)))
    sent = {
        "event_id": news.event_id,
        "status": news.status,
        "happened_at": news.happened_at.isoformat(),
        "message": news.message,
    }
    fingerprint = hashlib.sha256(json.dumps(sent, sort_keys=True).encode()).hexdigest()
    earlier = list(ShipmentEvent.objects.filter(shipment=shipment))
    for event in earlier:
        if event.shop_event_id == news.event_id:
            if event.request_fingerprint != fingerprint:
                raise ParcelNewsRefused(
                    "event_id_taken",
                    f"News {news.event_id} of shipment {shipment.shop_shipment_id} was already sent with "
                    "other content. New news needs a new event id.",
                )
            return ParcelNewsRecording(event=event, replayed=True)
    decision = progress_decide(
        current=shipment.progress,
        current_at=shipment.progress_at,
        status=news.status,
        happened_at=news.happened_at,
        emailed=frozenset(event.email_event for event in earlier if event.email_event),
        in_transit_email=settings.PARCEL_IN_TRANSIT_EMAIL,
    )
    event = ShipmentEvent.objects.create(
        shipment=shipment,
        shop_event_id=news.event_id,
        status=news.status,
        happened_at=news.happened_at,
        message=news.message,
        became_status=decision.becomes_status,
        email_event=decision.event_type,
        note=decision.note,
        request_fingerprint=fingerprint,
    )
    if decision.becomes_status:
        shipment.progress, shipment.progress_at = news.status, news.happened_at
        shipment.save(update_fields=["progress", "progress_at"])
    if decision.event_type:
        event_record(event_type=decision.event_type, aggregate_id=shipment.id)
    return ParcelNewsRecording(event=event, replayed=False)
