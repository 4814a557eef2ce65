"""Resend's HTTP API (`POST /emails`, Bearer auth), exact to its wire: the `Idempotency-Key`
header, remembered 24 h and answered with the first message's id; 409
`concurrent_idempotent_requests` while the first request runs; 409
`invalid_idempotent_request` for the key with another body; tags that come back on the
webhooks. Our simulator speaks the same wire (MAIL_PROVIDER_URL points at it in development).
Its delivery events come to our own view, /webhooks/resend/, signed with Svix.
"""

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import requests
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from notifications.providers.accounts import account_of
from notifications.providers.attachments import (
    MB,
    base64_content,
    json_api_size,
    refused_attachments,
    sendable_filename,
)
from notifications.providers.base import (
    ANY_NUMBER_OF_CALLS,
    KEY_TAG,
    Capabilities,
    OutboundEmail,
    Outcome,
    SendResult,
)
from notifications.providers.http_session import (
    accepted_result,
    answer_read,
    post_json,
    provider_session,
    retry_after_seconds,
    status_result,
)
from notifications.tracking.views import resend_webhook

PUBLIC_URL = "https://api.resend.com"
# Resend's signing secret as its dashboard shows it: "whsec_" and the base64 of the key.
SVIX_SECRET = re.compile(r"whsec_[A-Za-z0-9+/]+={0,2}")
# Resend's API reference, POST /emails `attachments`: "max 40MB per email, after Base64
# encoding of the attachments" (resend.com/docs/api-reference/emails/send-email).
MAX_EMAIL_BYTES = 40 * MB


@dataclass(frozen=True)
class ResendWebhook:
    path: str = "resend/"
    esp: str = "resend"

    def view(self) -> Callable[[HttpRequest], HttpResponse]:
        return resend_webhook

    def verification_problems(self) -> list[str]:
        secret = settings.RESEND_WEBHOOK_SECRET
        if not secret:
            return [
                "RESEND_WEBHOOK_SECRET is empty: copy the webhook's signing secret (whsec_…) from Resend."
            ]
        if not SVIX_SECRET.fullmatch(secret) or not _svix_key(secret):
            # svix would read what it can of a malformed secret and then refuse every event
            return ["RESEND_WEBHOOK_SECRET is not a Svix signing secret (whsec_ and base64)."]
        return []


def _svix_key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_") + "==")  # svix pads the same way
    except binascii.Error:
        return b""


class ResendProvider:
    name = "resend"
    capabilities = Capabilities(
        key_window=timedelta(hours=24),
        replays_message_id=True,
        reports_key_in_flight=True,
        reports_changed_body=True,
        concurrent_calls=ANY_NUMBER_OF_CALLS,  # its session is thread-safe
    )

    def __init__(self) -> None:
        account = account_of(self.name)
        self._url = (account.url or PUBLIC_URL).rstrip("/") + "/emails"
        self._session = provider_session(self._url, {"Authorization": f"Bearer {account.api_key}"})

    @classmethod
    def configuration_problems(cls) -> list[str]:
        account = account_of(cls.name)
        if not account.api_key:
            return [f"{account.key_setting} is empty: Resend needs an API key (re_…)."]
        if not (account.url or PUBLIC_URL).startswith(("http://", "https://")):
            return [f"{account.url_setting} {account.url!r} is not an http(s) URL."]
        return []

    @classmethod
    def delivery_webhook(cls) -> ResendWebhook:
        return ResendWebhook()

    def send(self, email: OutboundEmail) -> SendResult:
        counted = "its attachments in base64, with the text"
        refused = refused_attachments(email, "Resend", MAX_EMAIL_BYTES, lambda: json_api_size(email), counted)
        if refused:
            return refused
        answer = post_json(
            self._session,
            self._url,
            _body(email),
            headers={"Idempotency-Key": email.idempotency_key, "X-Event-Id": email.event_id},
        )
        return answer if isinstance(answer, SendResult) else classify_response(answer)


def _body(email: OutboundEmail) -> dict[str, Any]:
    body: dict[str, Any] = {
        "from": email.from_address,
        "to": [email.to],
        "subject": email.subject,
        "text": email.text,
        # Our key only, never the address: it comes back on every delivery event.
        "tags": [{"name": KEY_TAG, "value": email.idempotency_key}],
    }
    if email.html:
        body["html"] = email.html
    if email.attachments:
        # `content_type` is optional at Resend (derived from the filename's extension when
        # absent): ours is sent, so a name without an extension keeps its type.
        body["attachments"] = [
            {"filename": sendable_filename(a), "content": base64_content(a), "content_type": a.content_type}
            for a in email.attachments
        ]
    return body


def classify_response(response: requests.Response) -> SendResult:
    answer = answer_read(response, code_field="name")
    status, code, detail = answer.status, answer.code, answer.detail
    if 200 <= status < 300:
        return accepted_result(answer, id_field="id")
    if status == 409 and code == "concurrent_idempotent_requests":
        return SendResult(Outcome.IN_FLIGHT, http_status=status, error_code=code, detail=detail)
    if status in (409, 422) and code == "invalid_idempotent_request":
        return SendResult(Outcome.KEY_CONFLICT, http_status=status, error_code=code, detail=detail)
    return status_result(status, code, detail, retry_after_seconds(response))
