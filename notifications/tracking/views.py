"""The webhook endpoints. Each verifies the request, stores the event once and answers at
once; a worker applies it (notifications/tracking/apply.py). Anymail's endpoints
(`/webhooks/anymail/<esp>/tracking/`) are Anymail's own views; this is Resend's."""

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import UnusableEvent
from notifications.tracking.resend import WebhookVerificationError, resend_event_verify

logger = logging.getLogger(__name__)

SVIX_HEADERS = ("svix-id", "svix-timestamp", "svix-signature")


@csrf_exempt
@require_POST
def resend_webhook(request: HttpRequest) -> JsonResponse:
    secret = settings.RESEND_WEBHOOK_SECRET
    if not secret:
        # Resend retries for about 32 hours: setting the secret in time loses no event.
        return _answer(503, "RESEND_WEBHOOK_SECRET is not set: this endpoint cannot verify events yet.")
    headers = {name: request.headers.get(name, "") for name in SVIX_HEADERS}
    try:
        event = resend_event_verify(secret, request.body, headers)
    except WebhookVerificationError as exc:
        logger.warning("resend webhook refused: %s", exc)
        return _answer(401, f"The request is not signed by Resend, or its timestamp is stale: {exc}")
    except UnusableEvent as exc:
        logger.warning("resend webhook refused: %s", exc)
        return _answer(400, f"The event cannot be read: {exc}")
    if event is None:
        return _answer(200, "ignored: not a delivery event")
    stored = provider_event_store(event)
    return _answer(200, "stored" if stored else "already stored")


def _answer(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)
