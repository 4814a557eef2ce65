"""The admin's "Send a test delivery": a sample order, signed with the shop's secret as its
platform signs, through the same checks and the same intake as a real delivery. Its emails go
to the person who asked, as a customer would receive them; what was done is audited."""

import json
import uuid

from django.contrib.auth.models import User
from django.http import HttpHeaders

from intake import shopify, woocommerce
from intake.receive import Received, delivery_receive
from intake.samples import sample_order
from intake.verification import Refused, delivery_verify
from notifications.audit import action_done
from notifications.models import OperatorAction
from shops.models import Shop


class SampleRefused(Exception):
    """The intake refused the sample (the shop cannot verify its own deliveries): why, in words."""


def sample_delivery_send(shop: Shop, *, address: str, actor: User | None, actor_name: str) -> Received:
    topic, payload = sample_order(shop, address=address)
    body = json.dumps(payload).encode()
    verdict = delivery_verify(shop, HttpHeaders(_signed(shop, topic, body)), body)
    if isinstance(verdict, Refused):
        raise SampleRefused(verdict.detail)
    received = delivery_receive(
        shop=shop, event_key=verdict.event_key, webhook_id="test", topic=verdict.topic, body=body.decode()
    )
    action_done(
        action=OperatorAction.Action.TEST_SEND,
        actor=actor,
        actor_name=actor_name,
        comment=f"a test delivery of {shop.slug} ({topic}, order {payload['id']})",
        result=received.delivery.outcome,
    )
    return received


def _signed(shop: Shop, topic: str, body: bytes) -> dict[str, str]:
    """The request's headers as Django's META names them."""
    if shop.platform == Shop.Platform.WOOCOMMERCE:
        return {
            "HTTP_X_WC_WEBHOOK_SIGNATURE": woocommerce.SIGNING.signature_of(body, shop.webhook_secret),
            "HTTP_X_WC_WEBHOOK_SOURCE": shop.domain,
            "HTTP_X_WC_WEBHOOK_TOPIC": topic,
            "HTTP_X_WC_WEBHOOK_DELIVERY_ID": f"test-{uuid.uuid4().hex}",
        }
    return {
        "HTTP_X_SHOPIFY_HMAC_SHA256": shopify.SIGNING.signature_of(body, shop.webhook_secret),
        "HTTP_X_SHOPIFY_SHOP_DOMAIN": shop.domain,
        "HTTP_X_SHOPIFY_TOPIC": topic,
        "HTTP_X_SHOPIFY_EVENT_ID": f"test-{uuid.uuid4()}",
    }
