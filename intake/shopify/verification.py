"""Shopify's proof that a delivery is its own: the HMAC of the body with the app's client secret,
then the shop the delivery names (intake/verification.py says what the answer holds)."""

from django.http import HttpHeaders

from intake.delivery_keys import body_key
from intake.shopify import SIGNING
from intake.shopify.shop_redact import SHOP_REDACT, shop_redact_key
from intake.verification import Refused, Verified
from shops.models import Shop


def delivery_verify(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get(SIGNING.header, "")
    if not SIGNING.signature_valid(body=body, secret=shop.webhook_secret, signature=signature):
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
