"""An HTTP mail provider with Resend's wire shape: `POST /emails`, Bearer auth, an
`Idempotency-Key` header, `{"id": ...}` back. Our simulator speaks it too.

Classification (docs/failure-handling.md, "How "unknown" is detected"): a failure before the
request left (connect error) is transient; a failure after it left (read timeout, dropped connection,
5xx other than 503) is an unknown outcome, because the provider may have sent the email.
"""

import os
from datetime import timedelta
from typing import Any

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from notifications.providers.base import OutboundEmail, Outcome, SendResult


class HttpMailProvider:
    name = "http"
    idempotency_window = timedelta(hours=24)  # Resend keeps keys for 24 h

    def __init__(self) -> None:
        self._url = settings.MAIL_PROVIDER_URL.rstrip("/") + "/emails"
        self._timeout = (
            settings.MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS,
            settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS,
        )
        self._session = requests.Session()
        # No hidden retries below us: only the task retries, with the same key and a record.
        self._session.mount("http://", HTTPAdapter(max_retries=0))
        self._session.mount("https://", HTTPAdapter(max_retries=0))
        self._session.headers["Authorization"] = f"Bearer {settings.MAIL_PROVIDER_API_KEY}"
        # What requests reads from the environment on every call (a tenth of a send), read
        # once: the proxies, and a CA bundle for a provider behind a private CA.
        self._session.proxies = requests.utils.get_environ_proxies(self._url)
        ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        self._session.verify = ca_bundle or True
        self._session.trust_env = False

    def send(self, email: OutboundEmail) -> SendResult:
        try:
            response = self._session.post(
                self._url,
                json={
                    "from": settings.MAIL_FROM_ADDRESS,
                    "to": [email.to],
                    "subject": email.subject,
                    "text": email.text,
                },
                headers={"Idempotency-Key": email.idempotency_key, "X-Event-Id": email.event_id},
                timeout=self._timeout,
            )
        except requests.ConnectTimeout as exc:
            return SendResult(Outcome.TRANSIENT, detail=f"connect timeout: {exc}")
        except requests.ReadTimeout as exc:
            return SendResult(Outcome.UNKNOWN, detail=f"no answer in time after sending: {exc}")
        except requests.ConnectionError as exc:
            return _classify_connection_error(exc)
        return classify_response(response)


def _classify_connection_error(exc: requests.ConnectionError) -> SendResult:
    # Refused or unresolvable: the request never left. Anything else (reset, remote closed)
    # happened after it may have been processed.
    reason = exc.args[0] if exc.args else None
    inner = getattr(reason, "reason", None)
    if isinstance(inner, NewConnectionError):
        return SendResult(Outcome.TRANSIENT, detail=f"could not connect: {exc}")
    return SendResult(Outcome.UNKNOWN, detail=f"connection dropped after sending: {exc}")


def classify_response(response: requests.Response) -> SendResult:
    status = response.status_code
    body = _json_or_empty(response)
    code = str(body.get("name", ""))
    detail = str(body.get("message", "")) or response.text[:500]
    retry_after = _retry_after_seconds(response)
    if 200 <= status < 300:
        message_id = str(body.get("id", ""))
        if not message_id:  # accepted, but we cannot tell which message: treat as unknown
            return SendResult(Outcome.UNKNOWN, http_status=status, detail="2xx without a message id")
        return SendResult(Outcome.ACCEPTED, provider_message_id=message_id, http_status=status)
    if status == 409 and code == "concurrent_idempotent_requests":
        return SendResult(Outcome.IN_FLIGHT, http_status=status, error_code=code, detail=detail)
    if status in (409, 422) and code == "invalid_idempotent_request":
        return SendResult(Outcome.KEY_CONFLICT, http_status=status, error_code=code, detail=detail)
    if status in (429, 503):
        return SendResult(
            Outcome.TRANSIENT, http_status=status, error_code=code, detail=detail, retry_after=retry_after
        )
    if status >= 500:
        return SendResult(Outcome.UNKNOWN, http_status=status, error_code=code, detail=detail)
    return SendResult(Outcome.PERMANENT, http_status=status, error_code=code, detail=detail)


def _json_or_empty(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _retry_after_seconds(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date; rare for mail APIs, and our back-off covers it
