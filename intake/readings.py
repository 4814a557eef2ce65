"""How a platform's payloads are read: which topics carry the whole order, a parcel, a refund or
a privacy request, and the functions that turn each into our words (intake/shapes.py). Each
platform's reading is a column of its row in intake/platforms.py; intake/topics.py applies them
the same way for all."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from intake.shapes import PlatformOrder, PlatformParcelNews, PlatformRefund, PlatformShipment
from shops.models import Shop


@dataclass(frozen=True)
class PlatformReading:
    order_topics: frozenset[str]
    privacy_topics: frozenset[str]
    order_from_payload: Callable[[dict[str, Any]], PlatformOrder]
    platform_order_id_of: Callable[[str, dict[str, Any]], str]
    # A parcel's or a refund's own topic, where the platform has one (Shopify).
    shipment_topic: str = ""
    shipment_from_payload: Callable[[dict[str, Any]], PlatformShipment | None] | None = None
    refund_topic: str = ""
    refund_from_payload: Callable[[dict[str, Any], str], PlatformRefund | None] | None = None
    # A parcel's news from its carrier, where the platform has a topic of it (Shopify); None
    # from the reader when the news is none a customer is told of.
    parcel_news_topic: str = ""
    parcel_news_from_payload: Callable[[dict[str, Any]], PlatformParcelNews | None] | None = None
    # Why a privacy topic's body is not that request of this shop (topic, payload, shop's
    # domain), None when it is: the topic is an unsigned header, so the body must say it too.
    privacy_request_refusal: Callable[[str, dict[str, Any], str], str | None] | None = None
    # Why a privacy request of the shop (shop, topic) is not to be carried out now, read from the
    # shop's deliveries, None when it may be: Shopify's shop/redact only once the shop is quiet.
    privacy_request_doubt: Callable[[Shop, str], str | None] | None = None
    # Why a topic the platform may send is not used, where a generic "not used" would mislead
    # a person reading the delivery (Shopify's orders/edited: its news comes another way).
    unused_topic_reasons: dict[str, str] = field(default_factory=dict)

    @property
    def topics(self) -> frozenset[str]:
        """The topics to register: those that become emails, and the privacy requests."""
        return (
            self.order_topics
            | self.privacy_topics
            | {t for t in (self.shipment_topic, self.refund_topic, self.parcel_news_topic) if t}
        )
