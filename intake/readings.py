"""How each platform's payloads are read (intake/shopify/, intake/woocommerce/, intake/saleor/): which topics
carry the whole order, a parcel, a refund or a privacy request, and the functions that turn
each into our words (intake/shapes.py). intake/topics.py applies them the same way for all."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from intake import saleor, shopify, woocommerce
from intake.saleor.order import order_from_payload as saleor_order
from intake.shapes import PlatformOrder, PlatformRefund, PlatformShipment
from intake.shopify.order import order_from_payload as shopify_order
from intake.shopify.parcels import refund_from_payload as shopify_refund
from intake.shopify.parcels import shipment_from_payload as shopify_shipment
from intake.shopify.privacy import privacy_request_refusal as shopify_privacy_refusal
from intake.shopify.shop_redact import shop_redact_doubt
from intake.woocommerce.order import order_from_payload as woocommerce_order
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
    # Why a privacy topic's body is not that request of this shop (topic, payload, shop's
    # domain), None when it is: the topic is an unsigned header, so the body must say it too.
    privacy_request_refusal: Callable[[str, dict[str, Any], str], str | None] | None = None
    # Why a privacy request of the shop (shop, topic) is not to be carried out now, read from the
    # shop's deliveries, None when it may be: Shopify's shop/redact only once the shop is quiet.
    privacy_request_doubt: Callable[[Shop, str], str | None] | None = None

    @property
    def topics(self) -> frozenset[str]:
        """The topics to register: those that become emails, and the privacy requests."""
        return (
            self.order_topics
            | self.privacy_topics
            | {t for t in (self.shipment_topic, self.refund_topic) if t}
        )


READINGS = {
    Shop.Platform.SHOPIFY: PlatformReading(
        order_topics=shopify.ORDER_TOPICS,
        privacy_topics=shopify.PRIVACY_TOPICS,
        order_from_payload=shopify_order,
        platform_order_id_of=shopify.platform_order_id_of,
        shipment_topic=shopify.FULFILLMENT_TOPIC,
        shipment_from_payload=shopify_shipment,
        refund_topic=shopify.REFUND_TOPIC,
        refund_from_payload=shopify_refund,
        privacy_request_refusal=shopify_privacy_refusal,
        privacy_request_doubt=shop_redact_doubt,
    ),
    Shop.Platform.WOOCOMMERCE: PlatformReading(
        order_topics=woocommerce.ORDER_TOPICS,
        privacy_topics=frozenset(),
        order_from_payload=woocommerce_order,
        platform_order_id_of=woocommerce.platform_order_id_of,
    ),
    Shop.Platform.SALEOR: PlatformReading(
        order_topics=saleor.ORDER_TOPICS,
        privacy_topics=frozenset(),
        order_from_payload=saleor_order,
        platform_order_id_of=saleor.platform_order_id_of,
    ),
}


def reading_of(shop: Shop) -> PlatformReading | None:
    return READINGS.get(Shop.Platform(shop.platform))
