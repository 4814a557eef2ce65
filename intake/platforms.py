"""What differs between the shop platforms, all in one table: a platform is a row of PLATFORMS,
and every place that treats the platforms differently (the webhook's checks, the reading of its
topics, the shop's form and its page in the admin, the test delivery) reads its row. What each
column holds is the platform's own, in its package (intake/shopify/, intake/woocommerce/,
intake/saleor/)."""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpHeaders

from intake import saleor, shopify, woocommerce
from intake.hmac_signature import secret_as_typed
from intake.readings import PlatformReading
from intake.saleor import verification as saleor_verification
from intake.saleor.order import order_from_payload as saleor_order
from intake.saleor.subscription import SUBSCRIPTION_QUERY
from intake.samples import SampleDelivery
from intake.shopify import sample as shopify_sample
from intake.shopify import verification as shopify_verification
from intake.shopify.order import order_from_payload as shopify_order
from intake.shopify.parcels import parcel_news_from_payload as shopify_parcel_news
from intake.shopify.parcels import refund_from_payload as shopify_refund
from intake.shopify.parcels import shipment_from_payload as shopify_shipment
from intake.shopify.privacy import privacy_request_refusal as shopify_privacy_refusal
from intake.shopify.shop_redact import shop_redact_doubt
from intake.verification import Refused, Verified
from intake.woocommerce import sample as woocommerce_sample
from intake.woocommerce import verification as woocommerce_verification
from intake.woocommerce.order import order_from_payload as woocommerce_order
from shops.models import Shop
from shops.sites import site_of


def _topic_as_is(topic: str) -> str:
    return topic


@dataclass(frozen=True)
class Platform:
    # How its payloads are read: its topics, and what each becomes.
    reading: PlatformReading
    # Its proof that a delivery (the shop, the request's headers, the raw body) is its own, and
    # what names the delivery.
    delivery_verify: Callable[[Shop, HttpHeaders, bytes], Verified | Refused]
    # Whether its deliveries are signed with the shop's secret, which a shop must then have.
    signs_with_secret: bool = True
    # The key it signs with, made of the shop's secret as typed: no two shops may have the same
    # (intake/shop_form.py), or each would accept the other's deliveries.
    signing_key: Callable[[str], str] = secret_as_typed
    # The place its deliveries are proven to come from, of the shop's address: no two shops may
    # name the same (intake/shop_form.py).
    place_of: Callable[[str], str] = site_of
    # The admin's test of a shop: a sample order signed with the shop's secret, through the
    # intake; or, where the platform signs with a key this service never holds, a check of what
    # can be checked from here, as (passed, what it found). A row has one or the other.
    sample: SampleDelivery | None = None
    connection_check: Callable[[Shop], tuple[bool, str]] | None = None
    # How the shop's page in the admin names the topics to register (Saleor's dashboard, in
    # capitals), and the subscription query to register with them, where the platform needs one.
    topic_shown: Callable[[str], str] = _topic_as_is
    subscription_query: str = ""


# By Shop.Platform, whose values are the strings a form or a row holds.
PLATFORMS: dict[str, Platform] = {
    Shop.Platform.SHOPIFY: Platform(
        reading=PlatformReading(
            order_topics=shopify.ORDER_TOPICS,
            privacy_topics=shopify.PRIVACY_TOPICS,
            order_from_payload=shopify_order,
            platform_order_id_of=shopify.platform_order_id_of,
            shipment_topic=shopify.FULFILLMENT_TOPIC,
            shipment_from_payload=shopify_shipment,
            refund_topic=shopify.REFUND_TOPIC,
            refund_from_payload=shopify_refund,
            parcel_news_topic=shopify.FULFILLMENT_EVENT_TOPIC,
            parcel_news_from_payload=shopify_parcel_news,
            privacy_request_refusal=shopify_privacy_refusal,
            privacy_request_doubt=shop_redact_doubt,
            unused_topic_reasons=shopify.UNUSED_TOPIC_REASONS,
        ),
        delivery_verify=shopify_verification.delivery_verify,
        signing_key=shopify.SIGNING.signing_key,
        sample=shopify_sample.SAMPLE,
    ),
    Shop.Platform.WOOCOMMERCE: Platform(
        reading=PlatformReading(
            order_topics=woocommerce.ORDER_TOPICS,
            privacy_topics=frozenset(),
            order_from_payload=woocommerce_order,
            platform_order_id_of=woocommerce.platform_order_id_of,
        ),
        delivery_verify=woocommerce_verification.delivery_verify,
        signing_key=woocommerce.SIGNING.signing_key,
        sample=woocommerce_sample.SAMPLE,
    ),
    Shop.Platform.SALEOR: Platform(
        reading=PlatformReading(
            order_topics=saleor.ORDER_TOPICS,
            privacy_topics=frozenset(),
            order_from_payload=saleor_order,
            platform_order_id_of=saleor.platform_order_id_of,
        ),
        delivery_verify=saleor_verification.delivery_verify,
        signs_with_secret=False,  # with its own key, checked against those the shop publishes
        place_of=saleor_verification.keys_site_of,
        connection_check=saleor_verification.connection_check,
        topic_shown=str.upper,
        subscription_query=SUBSCRIPTION_QUERY,
    ),
}


def platform_of(shop: Shop) -> Platform:
    return PLATFORMS[Shop.Platform(shop.platform)]
