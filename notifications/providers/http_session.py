"""What every HTTP provider adapter shares: a session with no hidden retries, and the
classification of a request that failed without an answer.

A failure before the request left (connect error) is transient; a failure after it left
(read timeout, dropped connection) is an unknown outcome, because the provider may have
sent the email (docs/failure-handling.md, "How "unknown" is detected").
"""

import os
from dataclasses import dataclass
from typing import Any

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from notifications.providers.base import Outcome, SendResult


def provider_session(url: str, headers: dict[str, str]) -> requests.Session:
    session = requests.Session()
    # No hidden retries below us: only the task retries, with the same key and a record.
    # A batch's calls run at the same time (notifications/delivery/handler.py): one kept-alive
    # connection per concurrent call, instead of requests' default of ten.
    pool = max(10, settings.DELIVERY_BATCH_SIZE)
    session.mount("http://", HTTPAdapter(max_retries=0, pool_maxsize=pool))
    session.mount("https://", HTTPAdapter(max_retries=0, pool_maxsize=pool))
    session.headers.update(headers)
    # What requests reads from the environment on every call (a tenth of a send), read
    # once: the proxies, and a CA bundle for a provider behind a private CA.
    session.proxies = requests.utils.get_environ_proxies(url)
    ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    session.verify = ca_bundle or True
    session.trust_env = False
    return session


def provider_timeout() -> tuple[float, float]:
    return (settings.MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS, settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS)


def post_json(
    session: requests.Session, url: str, body: dict[str, Any], **kwargs: Any
) -> requests.Response | SendResult:
    """The response, or the classified failure when there was none."""
    try:
        return session.post(url, json=body, timeout=provider_timeout(), **kwargs)
    except requests.ConnectTimeout as exc:
        return SendResult(Outcome.TRANSIENT, detail=f"connect timeout: {exc}")
    except requests.ReadTimeout as exc:
        return SendResult(Outcome.UNKNOWN, detail=f"no answer in time after sending: {exc}")
    except requests.ConnectionError as exc:
        return connection_error_result(exc)


def connection_error_result(exc: requests.ConnectionError) -> SendResult:
    # Refused or unresolvable: the request never left. Anything else (reset, remote closed)
    # happened after it may have been processed.
    reason = exc.args[0] if exc.args else None
    inner = getattr(reason, "reason", None)
    if isinstance(inner, NewConnectionError) or isinstance(reason, NewConnectionError):
        return SendResult(Outcome.TRANSIENT, detail=f"could not connect: {exc}")
    return SendResult(Outcome.UNKNOWN, detail=f"connection dropped after sending: {exc}")


@dataclass(frozen=True)
class Answer:
    """A provider's JSON answer, read the same way for every HTTP provider."""

    status: int
    code: str  # the provider's error code, e.g. Resend's `name`, Brevo's `code`
    detail: str
    body: dict[str, Any]


def answer_read(response: requests.Response, *, code_field: str) -> Answer:
    body = json_or_empty(response)
    detail = str(body.get("message", "")) or response.text[:500]
    return Answer(response.status_code, str(body.get(code_field, "")), detail, body)


def accepted_result(answer: Answer, *, id_field: str) -> SendResult:
    """A 2xx: accepted with the provider's message id, or unknown if it names none (we could
    not tell which message it was)."""
    message_id = str(answer.body.get(id_field, ""))
    if not message_id:
        return SendResult(Outcome.UNKNOWN, http_status=answer.status, detail=f"2xx without `{id_field}`")
    return SendResult(Outcome.ACCEPTED, provider_message_id=message_id, http_status=answer.status)


def json_or_empty(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def retry_after_seconds(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date; rare for mail APIs, and our back-off covers it


def status_result(status: int, code: str, detail: str, retry_after: float | None) -> SendResult:
    """The answer to a refused request, by HTTP status, once provider-specific codes are ruled out."""
    if status in (429, 503):
        return SendResult(
            Outcome.TRANSIENT, http_status=status, error_code=code, detail=detail, retry_after=retry_after
        )
    if status >= 500:  # the provider failed while handling it: it may have sent the email
        return SendResult(Outcome.UNKNOWN, http_status=status, error_code=code, detail=detail)
    return SendResult(Outcome.PERMANENT, http_status=status, error_code=code, detail=detail)
