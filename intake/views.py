"""The connected shops' webhook: /shops/<slug>/webhook, one address per shop. Thin: it finds
the shop, refuses an oversized body unread, checks the platform's signature on the raw bytes
before anything parses them, and hands the delivery to intake/receive.py, whose one transaction
is done when it answers 2xx."""

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from intake import shopify
from intake.receive import delivery_receive
from observability.metrics import PLATFORM_DELIVERIES
from shops.models import Shop

logger = logging.getLogger(__name__)


@csrf_exempt
@require_POST
def shop_webhook_receive(request: HttpRequest, slug: str) -> JsonResponse:
    shop = Shop.objects.filter(slug=slug, active=True).first()
    if shop is None:
        return _answer(404, f"No connected shop is at /shops/{slug}/webhook.")
    refusal = _size_refusal(request)
    if refusal is not None:
        return refusal
    body = request.body
    if shop.platform != Shop.Platform.SHOPIFY:
        return _answer(501, f"{shop.get_platform_display()} deliveries are not received yet.")
    headers = request.headers
    if not shopify.signature_valid(
        body=body, secret=shop.webhook_secret, signature=headers.get("X-Shopify-Hmac-Sha256", "")
    ):
        logger.warning("shop webhook refused: bad or missing signature", extra={"shop": shop.slug})
        return _answer(401, "The body is not signed with this shop's client secret (X-Shopify-Hmac-Sha256).")
    # One app's secret may sign the deliveries of several shops: each must come to its own address.
    domain = headers.get("X-Shopify-Shop-Domain", "")
    if domain != shop.domain:
        logger.warning("shop webhook refused: another shop's delivery", extra={"shop": shop.slug})
        return _answer(401, f"This delivery is for {domain or 'no shop'}, not {shop.domain}.")
    event_key = headers.get("X-Shopify-Event-Id") or headers.get("X-Shopify-Webhook-Id") or ""
    topic = headers.get("X-Shopify-Topic", "")
    if not event_key or not topic:
        return _answer(
            400, "A Shopify delivery names its event (X-Shopify-Event-Id) and topic (X-Shopify-Topic)."
        )
    received = delivery_receive(
        shop=shop,
        event_key=event_key[:255],
        webhook_id=headers.get("X-Shopify-Webhook-Id", "")[:255],
        topic=topic[:100],
        body=body.decode("utf-8", errors="replace"),
    )
    outcome = "duplicate" if received.duplicate else received.delivery.outcome
    PLATFORM_DELIVERIES.labels(shop.platform, outcome).inc()
    return _answer(200, outcome, delivery=str(received.delivery.id))


def _size_refusal(request: HttpRequest) -> JsonResponse | None:
    limit = settings.PLATFORM_WEBHOOK_MAX_BODY_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > limit:
        return _answer(413, f"The body has {length} bytes; a shop's delivery may have at most {limit}.")
    if not length and "HTTP_TRANSFER_ENCODING" in request.META:
        return _answer(411, "Send the body with a Content-Length header; chunked bodies are not accepted.")
    return None


def _answer(status: int, detail: str, **fields: str) -> JsonResponse:
    return JsonResponse({"detail": detail, **fields}, status=status)
