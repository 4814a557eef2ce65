"""Brevo's transactional email API (`POST /v3/smtp/email`, `api-key` header).

Its idempotency key is a UUID inside the JSON body's `headers` (`idempotencyKey`), not an
HTTP header. A key it saw inside its window (documented as 15 and as 30 minutes: we take the
shorter) is refused as `duplicate_parameter` without the first message's id: the email was
accepted earlier, so it is never sent again; the provider's delivery events, which carry
our key in `X-Mailin-custom`, confirm it (notifications/tracking/).
"""

import json
from datetime import timedelta
from email.utils import parseaddr
from typing import Any

import requests
from django.conf import settings

from notifications.providers.accounts import account_of
from notifications.providers.anymail_webhooks import AnymailTrackingWebhook, anymail_tracking_webhook
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

PUBLIC_URL = "https://api.brevo.com"
DUPLICATE = "duplicate_parameter"
# Brevo's help centre, "Add an attachment to a transactional email" (help.brevo.com, article
# 4402811730962): "The size limit for transactional emails is 20MB, including attachments and
# email content." Brevo takes a file's type from its name's extension, from a documented list
# (pdf among them): another extension is refused by Brevo (400, permanent).
MAX_EMAIL_BYTES = 20 * MB


class BrevoProvider:
    name = "brevo"
    capabilities = Capabilities(
        key_window=timedelta(minutes=15),
        replays_message_id=False,
        reports_key_in_flight=False,  # a repeat in flight gets the same duplicate answer
        reports_changed_body=False,
        concurrent_calls=ANY_NUMBER_OF_CALLS,  # its session is thread-safe
    )

    def __init__(self) -> None:
        account = account_of(self.name)
        self._url = (account.url or PUBLIC_URL).rstrip("/") + "/v3/smtp/email"
        self._session = provider_session(self._url, {"api-key": account.api_key})

    @classmethod
    def configuration_problems(cls) -> list[str]:
        account = account_of(cls.name)
        if not account.api_key:
            return [f"{account.key_setting} is empty: Brevo needs an API key (xkeysib-…)."]
        if not parseaddr(settings.MAIL_FROM_ADDRESS)[1]:
            return [f"MAIL_FROM_ADDRESS {settings.MAIL_FROM_ADDRESS!r} has no address for Brevo's sender."]
        return []

    @classmethod
    def delivery_webhook(cls) -> AnymailTrackingWebhook | None:
        return anymail_tracking_webhook("brevo")  # we send ourselves; Anymail reads its events

    def send(self, email: OutboundEmail) -> SendResult:
        counted = "its attachments in base64, with the text"
        refused = refused_attachments(email, "Brevo", MAX_EMAIL_BYTES, lambda: json_api_size(email), counted)
        if refused:
            return refused
        answer = post_json(self._session, self._url, _body(email), headers={"X-Event-Id": email.event_id})
        return answer if isinstance(answer, SendResult) else classify_response(answer)


def _body(email: OutboundEmail) -> dict[str, Any]:
    name, address = parseaddr(email.from_address)
    body: dict[str, Any] = {
        "sender": {"email": address, **({"name": name} if name else {})},
        "to": [{"email": email.to}],
        "subject": email.subject,
        "textContent": email.text,
        "headers": {
            "idempotencyKey": email.idempotency_key,
            # Brevo returns this header's value on every webhook event: our key, never the address.
            "X-Mailin-custom": json.dumps({KEY_TAG: email.idempotency_key}),
        },
    }
    if email.html:
        body["htmlContent"] = email.html
    if email.attachments:
        body["attachment"] = [
            {"name": sendable_filename(a), "content": base64_content(a)} for a in email.attachments
        ]
    return body


def classify_response(response: requests.Response) -> SendResult:
    answer = answer_read(response, code_field="code")
    if 200 <= answer.status < 300:
        return accepted_result(answer, id_field="messageId")
    if answer.code == DUPLICATE:
        return SendResult(
            Outcome.ACCEPTED_EARLIER, http_status=answer.status, error_code=answer.code, detail=answer.detail
        )
    return status_result(answer.status, answer.code, answer.detail, retry_after_seconds(response))
