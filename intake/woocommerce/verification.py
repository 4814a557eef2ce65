"""WooCommerce's proof that a delivery is its own: the HMAC of the body with the webhook's
secret, then the store the delivery names; its unsigned ping is answered 200
(intake/verification.py says what the answer holds)."""

from django.http import HttpHeaders

from intake.delivery_keys import body_key
from intake.verification import Refused, Verified
from intake.woocommerce import SIGNING, is_ping
from shops.models import Shop
from shops.sites import site_of


def delivery_verify(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get(SIGNING.header, "")
    if is_ping(body, signature):
        return Refused(200, "ping answered: the webhook's address works")
    if not SIGNING.signature_valid(body=body, secret=shop.webhook_secret, signature=signature):
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
