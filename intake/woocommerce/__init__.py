"""WooCommerce's webhooks: the signature, the ping and the topics.

What WooCommerce does, read in its source (`WC_Webhook`, plugins/woocommerce/includes/
class-wc-webhook.php): `deliver()` posts the REST API's order (v3) as JSON with the headers
X-WC-Webhook-Source, -Topic, -Resource, -Event, -Signature, -ID and -Delivery-ID;
`generate_signature()` is base64 of HMAC-SHA256 of the body keyed with the webhook's secret
after `wp_specialchars_decode` (the secret as typed, its HTML entities decoded);
`get_new_delivery_id()` is `wp_hash(webhook id . time())`, so two deliveries of one webhook in
the same second share their delivery id (which is not signed either: the body's digest is the
delivery's key, intake/delivery_keys.py); `deliver_ping()` posts `webhook_id=<id>` unsigned
when a webhook is saved, and wants 200; five failures in a row disable the webhook. There is no
retry with backoff: `manage.py shop_backfill` is the way to catch up (docs/platforms.md)."""

import html
import re
from typing import Any

from intake.hmac_signature import HmacSigning

ORDER_TOPICS = frozenset({"order.created", "order.updated", "order.restored"})
_PING = re.compile(rb"webhook_id=\d+")


def signing_key(secret: str) -> str:
    """The key WooCommerce signs with: the secret as typed, its HTML entities decoded
    (wp_specialchars_decode(..., ENT_QUOTES))."""
    return html.unescape(secret)


SIGNING = HmacSigning(header="X-WC-Webhook-Signature", signing_key=signing_key)


def is_ping(body: bytes, signature: str) -> bool:
    """The unsigned request WooCommerce sends when a webhook is saved (it must answer 200)."""
    return not signature and _PING.fullmatch(body) is not None


def platform_order_id_of(topic: str, payload: dict[str, Any]) -> str:
    value = payload.get("id")
    return str(value) if value is not None else ""
