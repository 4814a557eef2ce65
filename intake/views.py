"""The connected shops' webhook: /shops/<slug>/webhook, one address per shop. Thin: it finds
the shop, refuses an oversized body unread, checks the platform's signature on the raw bytes
before anything parses them, and hands the delivery to intake/receive.py, whose one transaction
is done when it answers 2xx."""

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from intake.platforms import platform_of
from intake.receive import delivery_receive
from intake.verification import Refused
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
    verdict = platform_of(shop).delivery_verify(shop, request.headers, request.body)
    if isinstance(verdict, Refused):
        if verdict.status >= 400:
            logger.warning("shop webhook refused: %s", verdict.detail, extra={"shop": shop.slug})
        return _answer(verdict.status, verdict.detail)
    received = delivery_receive(
        shop=shop,
        event_key=verdict.event_key,
        webhook_id=verdict.webhook_id,
        topic=verdict.topic,
        body=request.body.decode("utf-8", errors="replace"),
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
