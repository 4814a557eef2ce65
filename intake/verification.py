"""Each platform's proof that a delivery is its own, checked on the raw bytes before anything
parses them, and what names the delivery: its event key (what is signed, the body, by its digest:
intake/delivery_keys.py; a Shopify shop/redact's in intake/shopify/shop_redact.py), its topic,
and the ids the platform gives it, for a person tracing it. A delivery that fails is refused
with the status it gets and nothing is stored."""

from dataclasses import dataclass

from django.http import HttpHeaders

from intake import shopify, woocommerce
from intake.delivery_keys import body_key
from intake.saleor.signature import KeysUnavailable, SignatureInvalid, signature_check
from intake.shopify.shop_redact import SHOP_REDACT, shop_redact_key
from shops.models import Shop
from shops.sites import site_of


@dataclass(frozen=True)
class Verified:
    event_key: str
    topic: str
    webhook_id: str = ""


@dataclass(frozen=True)
class Refused:
    status: int
    detail: str


def delivery_verify(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    if shop.platform == Shop.Platform.SHOPIFY:
        return _shopify(shop, headers, body)
    if shop.platform == Shop.Platform.WOOCOMMERCE:
        return _woocommerce(shop, headers, body)
    return _saleor(shop, headers, body)


def _shopify(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get(shopify.SIGNING.header, "")
    if not shopify.SIGNING.signature_valid(body=body, secret=shop.webhook_secret, signature=signature):
        return Refused(401, "The body is not signed with this shop's client secret (X-Shopify-Hmac-Sha256).")
    # A public app's secret signs the deliveries of every shop that installed it: each must come to
    # its own address. (Two connected shops never share a secret, shops/models.py, so this header
    # is a second guard, not the only one: it is not signed.)
    domain = headers.get("X-Shopify-Shop-Domain", "")
    if domain != shop.domain:
        return Refused(401, f"This delivery is for {domain or 'no shop'}, not {shop.domain}.")
    event_id = headers.get("X-Shopify-Event-Id") or headers.get("X-Shopify-Webhook-Id") or ""
    topic = headers.get("X-Shopify-Topic", "")
    if not event_id or not topic:
        return Refused(
            400, "A Shopify delivery names its event (X-Shopify-Event-Id) and topic (X-Shopify-Topic)."
        )
    # The event's id is not signed: kept beside the webhook's for a person tracing it.
    traced = f"event {event_id[:100]}, webhook {headers.get('X-Shopify-Webhook-Id', '')[:100]}"
    key = shop_redact_key(shop, body) if topic == SHOP_REDACT else body_key(body)
    return Verified(key, topic[:100], traced)


def _woocommerce(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get(woocommerce.SIGNING.header, "")
    if woocommerce.is_ping(body, signature):
        return Refused(200, "ping answered: the webhook's address works")
    if not woocommerce.SIGNING.signature_valid(body=body, secret=shop.webhook_secret, signature=signature):
        return Refused(401, "The body is not signed with this webhook's secret (X-WC-Webhook-Signature).")
    source = headers.get("X-WC-Webhook-Source", "")
    if site_of(source) != site_of(shop.domain):
        return Refused(401, f"This delivery is from {source or 'no shop'}, not {shop.domain}.")
    delivery_id = headers.get("X-WC-Webhook-Delivery-ID", "")
    topic = headers.get("X-WC-Webhook-Topic", "")
    if not delivery_id or not topic:
        return Refused(
            400,
            "A WooCommerce delivery names its delivery (X-WC-Webhook-Delivery-ID) and topic "
            "(X-WC-Webhook-Topic).",
        )
    # The delivery's id is not signed: kept beside the webhook's for a person tracing it.
    traced = f"webhook {headers.get('X-WC-Webhook-ID', '')[:100]}, delivery {delivery_id[:100]}"
    return Verified(body_key(body), topic[:100], traced)


def _saleor(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get("Saleor-Signature", "")
    if not signature:
        return Refused(401, "The delivery is not signed (Saleor-Signature).")
    try:
        signature_check(api_url=shop.domain, body=body, signature=signature)
    except SignatureInvalid as exc:
        return Refused(401, str(exc))
    except KeysUnavailable as exc:
        # Not the sender's fault, and Saleor sends a delivery again after an error.
        return Refused(503, f"The signature cannot be checked now: {exc}")
    api_url = headers.get("Saleor-Api-Url", "")
    if site_of(api_url) != site_of(shop.domain):
        return Refused(401, f"This delivery is from {api_url or 'no Saleor'}, not {shop.domain}.")
    topic = headers.get("Saleor-Event", "")
    if not topic:
        return Refused(400, "A Saleor delivery names its event (Saleor-Event).")
    return Verified(body_key(body), topic[:100])
