"""Resend's HTTP API (`POST /emails`, Bearer auth), exact to its wire: the `Idempotency-Key`
header, remembered 24 h and answered with the first message's id; 409
`concurrent_idempotent_requests` while the first request runs; 409
`invalid_idempotent_request` for the key with another body; tags that come back on the
webhooks. Our simulator speaks the same wire (MAIL_PROVIDER_URL points at it in development).
"""

from datetime import timedelta
from typing import Any

import requests
from django.conf import settings

from notifications.providers.base import KEY_TAG, Capabilities, OutboundEmail, Outcome, SendResult
from notifications.providers.http_session import (
    accepted_result,
    answer_read,
    post_json,
    provider_session,
    retry_after_seconds,
    status_result,
)

PUBLIC_URL = "https://api.resend.com"


class ResendProvider:
    name = "resend"
    concurrent_sends = True  # its client is thread-safe: a batch calls it from several threads
    capabilities = Capabilities(
        key_window=timedelta(hours=24),
        replays_message_id=True,
        reports_key_in_flight=True,
        reports_changed_body=True,
    )

    def __init__(self) -> None:
        self._url = (settings.MAIL_PROVIDER_URL or PUBLIC_URL).rstrip("/") + "/emails"
        self._session = provider_session(
            self._url, {"Authorization": f"Bearer {settings.MAIL_PROVIDER_API_KEY}"}
        )

    @classmethod
    def configuration_problems(cls) -> list[str]:
        if not settings.MAIL_PROVIDER_API_KEY:
            return ["MAIL_PROVIDER_API_KEY is empty: Resend needs an API key (re_…)."]
        if not (settings.MAIL_PROVIDER_URL or PUBLIC_URL).startswith(("http://", "https://")):
            return [f"MAIL_PROVIDER_URL {settings.MAIL_PROVIDER_URL!r} is not an http(s) URL."]
        return []

    def send(self, email: OutboundEmail) -> SendResult:
        answer = post_json(
            self._session,
            self._url,
            _body(email),
            headers={"Idempotency-Key": email.idempotency_key, "X-Event-Id": email.event_id},
        )
        return answer if isinstance(answer, SendResult) else classify_response(answer)


def _body(email: OutboundEmail) -> dict[str, Any]:
    body: dict[str, Any] = {
        "from": settings.MAIL_FROM_ADDRESS,
        "to": [email.to],
        "subject": email.subject,
        "text": email.text,
        # Our key only, never the address: it comes back on every delivery event.
        "tags": [{"name": KEY_TAG, "value": email.idempotency_key}],
    }
    if email.html:
        body["html"] = email.html
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
