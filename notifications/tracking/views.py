"""The delivery webhooks. /webhooks/<path> serves only the configured providers' endpoints
(their `DeliveryWebhook`s, notifications/providers/; MAIL_PROVIDER's and MAIL_PROVIDER_FALLBACK's,
since an email either sent speaks through its events): every other path is a 404, so no ESP we
do not send through can post events, whatever Anymail offers. Each request is then checked
(the endpoint can verify it, the body can be read) before the provider's view verifies its
credentials, stores each event once and answers at once; a worker applies it
(notifications/tracking/apply.py). Anymail's views are Anymail's own; Resend's is below."""

import logging

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from infra.json_nesting import json_nesting_refusal
from notifications.providers.catalogue import delivery_webhooks
from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import UnusableEvent
from notifications.tracking.resend import SignatureRefused, resend_event_verify

logger = logging.getLogger(__name__)

SVIX_HEADERS = ("svix-id", "svix-timestamp", "svix-signature")


@csrf_exempt
def delivery_webhook_receive(request: HttpRequest, route: str) -> HttpResponse:
    webhook = next((webhook for webhook in delivery_webhooks() if webhook.path == route), None)
    if webhook is None:
        raise Http404(f"No delivery webhook at /webhooks/{route} for {_providers_named()}.")
    if request.method not in ("POST", "HEAD"):  # HEAD: ESPs check the address with one
        return HttpResponseNotAllowed(["POST", "HEAD"])
    problems = webhook.verification_problems()
    if problems:
        # Providers retry (Resend for about 32 hours): setting the secret in time loses no event.
        logger.warning("delivery webhook %s refused: it cannot verify requests: %s", webhook.path, problems)
        return _answer(503, "This endpoint cannot verify events yet. " + " ".join(problems))
    refusal = _body_refusal(request.body)
    if refusal is not None:
        logger.warning("delivery webhook %s refused: %s", webhook.path, refusal)
        return _answer(400, refusal)
    try:
        return webhook.view()(request)
    except RecursionError:
        # JSON inside the body's JSON or form (SES's SNS `Message`, Mandrill's `mandrill_events`),
        # which the provider's view parses after its credentials passed.
        logger.warning("delivery webhook %s refused: a document inside the body nests too deep", webhook.path)
        return _answer(400, "A document inside the body nests too deep to be read.")


def _providers_named() -> str:
    fallback = (
        f", MAIL_PROVIDER_FALLBACK={settings.MAIL_PROVIDER_FALLBACK}"
        if settings.MAIL_PROVIDER_FALLBACK
        else ""
    )
    return f"MAIL_PROVIDER={settings.MAIL_PROVIDER}{fallback}"


def _body_refusal(body: bytes) -> str | None:
    """Every provider posts UTF-8 (JSON, or a form); the views parse it without asking."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "The body is not UTF-8 text."
    return json_nesting_refusal(text)


@csrf_exempt
@require_POST
def resend_webhook(request: HttpRequest) -> JsonResponse:
    """Resend's events; mounted by delivery_webhook_receive, which has checked the secret."""
    headers = {name: request.headers.get(name, "") for name in SVIX_HEADERS}
    try:
        event = resend_event_verify(settings.RESEND_WEBHOOK_SECRET, request.body, headers)
    except SignatureRefused as exc:
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
