"""What each topic of a platform does: an order's state, a parcel, a refund, a privacy request
for a person, or nothing (a topic we do not use, answered and counted)."""

import json
from dataclasses import dataclass, field
from typing import Any

from infra.json_nesting import json_nesting_refusal
from infra.storable_text import storable
from intake.apply import (
    Applied,
    order_of_delivery,
    order_snapshot_apply,
    parcel_news_apply,
    shipment_apply,
)
from intake.models import PlatformDelivery
from intake.platform_refunds import refund_apply
from intake.platforms import platform_of
from intake.readings import PlatformReading
from intake.shapes import Unusable
from orders.models import Order
from shops.models import Shop

Outcome = PlatformDelivery.Outcome


@dataclass(frozen=True)
class TopicResult:
    outcome: str
    reason: str = ""
    order: Order | None = None
    order_created: bool = False
    changes: list[str] = field(default_factory=list)

    @property
    def parcel_recorded(self) -> bool:
        """A parcel was recorded: its news that came first may be applied now."""
        return any(change.startswith("shipment ") for change in self.changes)


def platform_order_id_of(shop: Shop, topic: str, body: str) -> str:
    """The platform's id of the order a delivery is about, "" when it names none or the body is
    not JSON (then the delivery's own application says why)."""
    reading = platform_of(shop).reading
    if json_nesting_refusal(body) is not None:
        return ""
    try:
        payload = json.loads(body)
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    # Stored in the delivery's row, which must be written whatever the body holds.
    return storable(reading.platform_order_id_of(topic, payload)[:64])


_FOR_A_PERSON = "A privacy request: stored here for a person to answer."
_PRIVACY_REASONS = {
    "customers/redact": "An erasure request: the hourly job erases the customer's data of this shop "
    "(intake/privacy_requests.py).",
    "shop/redact": "The shop's erasure request: the hourly job erases the data of every customer of "
    "this shop (intake/privacy_requests.py).",
    "customers/data_request": "A request for the customer's data: export it from the admin's page of a "
    "customer's personal data (or manage.py customer_export) and send it to the shop owner.",
}


def topic_apply(shop: Shop, topic: str, body: str) -> TopicResult:
    """Raises Unusable or OrderNotYetReceived (intake/shapes.py); the caller records them."""
    reading = platform_of(shop).reading
    if topic in reading.privacy_topics:
        _privacy_request_check(reading, shop, topic, body)
        return TopicResult(Outcome.FOR_A_PERSON, _PRIVACY_REASONS.get(topic, _FOR_A_PERSON))
    if topic not in reading.topics:
        reason = reading.unused_topic_reasons.get(topic, f"The topic {topic!r} does not become an email.")
        return TopicResult(Outcome.TOPIC_UNUSED, reason)
    payload = _payload(body)
    if topic in reading.order_topics:
        return _result(order_snapshot_apply(shop, reading.order_from_payload(payload)))
    order = order_of_delivery(shop, reading.platform_order_id_of(topic, payload))
    if topic == reading.shipment_topic and reading.shipment_from_payload is not None:
        shipment = reading.shipment_from_payload(payload)
        if shipment is None:
            return TopicResult(
                Outcome.USED,
                f"Fulfillment status {payload.get('status')!r}: not on its way, nothing to tell.",
                order,
            )
        return _result(Applied(order=order, changes=shipment_apply(order, shipment)))
    if topic == reading.parcel_news_topic and reading.parcel_news_from_payload is not None:
        news = reading.parcel_news_from_payload(payload)
        if news is None:
            return TopicResult(
                Outcome.USED, f"Parcel status {payload.get('status')!r}: no customer is told of it.", order
            )
        return _result(Applied(order=order, changes=parcel_news_apply(order, news)))
    assert reading.refund_from_payload is not None  # the topic is the refund's: every topic is one of these
    refund = reading.refund_from_payload(payload, order.currency)
    if refund is None:
        return TopicResult(Outcome.USED, "No money went back with this refund: nothing to tell.", order)
    return _result(Applied(order=order, changes=refund_apply(order, refund)))


def _privacy_request_check(reading: PlatformReading, shop: Shop, topic: str, body: str) -> None:
    """Raises Unusable when the body is not that request of this shop, or when the shop's
    deliveries make it unlikely to be genuine now (checked again at each re-run)."""
    if reading.privacy_request_refusal is not None:
        refusal = reading.privacy_request_refusal(topic, _payload(body), shop.domain)
        if refusal is not None:
            raise Unusable(refusal)
    if reading.privacy_request_doubt is not None:
        doubt = reading.privacy_request_doubt(shop, topic)
        if doubt is not None:
            raise Unusable(doubt)


def _result(applied: Applied) -> TopicResult:
    if applied.stale:
        return TopicResult(
            Outcome.STALE,
            "A newer state of the order was applied before this one arrived: it changed nothing.",
            applied.order,
        )
    return TopicResult(
        Outcome.USED,
        "; ".join(applied.changes) or "nothing new: everything it says was applied before",
        applied.order,
        order_created="order created" in applied.changes,
        changes=applied.changes,
    )


def _payload(body: str) -> dict[str, Any]:
    refusal = json_nesting_refusal(body)
    if refusal is not None:
        raise Unusable(refusal)
    try:
        payload = json.loads(body)
    except ValueError as exc:
        raise Unusable(f"The body is not JSON: {exc}.") from exc
    if not isinstance(payload, dict):
        raise Unusable("The body is JSON but not an object.")
    return payload
