"""What Anymail's answer means for an email (notifications/providers/anymail.py): its
status after a send, or the exception it raised (anymail/exceptions.py).

Anymail raises before any HTTP for what it cannot express (an invalid address, a feature the
ESP lacks, data it cannot serialize, a missing setting): permanent. When the request failed
without an answer, it raises a class that is both AnymailRequestsAPIError and the original
requests exception, from that exception (base_requests.py `post_to_esp`): refused or not
connected in time is transient, anything after the request left is unknown. An ESP's error
answer carries its HTTP status.
"""

from typing import Any

import requests
from anymail.exceptions import (
    AnymailAPIError,
    AnymailConfigurationError,
    AnymailInvalidAddress,
    AnymailRecipientsRefused,
    AnymailSerializationError,
    AnymailUnsupportedFeature,
)

from notifications.providers.base import Outcome, SendResult
from notifications.providers.brevo import DUPLICATE
from notifications.providers.http_session import (
    connection_error_result,
    json_or_empty,
    retry_after_seconds,
    status_result,
)

# Raised while Anymail builds the request: nothing was sent, and it never will be as it is.
REFUSED_BEFORE_SENDING = (
    AnymailInvalidAddress,
    AnymailUnsupportedFeature,
    AnymailSerializationError,
    AnymailConfigurationError,
)
ACCEPTED_STATUSES = frozenset({"sent", "queued"})
REFUSED_STATUSES = frozenset({"rejected", "invalid", "failed"})
# Where the ESPs put their error code in a JSON error answer (Postmark, Brevo, Resend, Mailgun).
ERROR_CODE_FIELDS = ("ErrorCode", "code", "name", "error")


def classify_status(status: Any) -> SendResult:
    """A send that raised nothing: Anymail's AnymailStatus of it."""
    statuses = set(status.status or ())
    message_id = status.message_id
    http_status = getattr(status.esp_response, "status_code", None)
    if statuses and statuses <= ACCEPTED_STATUSES and isinstance(message_id, str) and message_id:
        return SendResult(Outcome.ACCEPTED, provider_message_id=message_id, http_status=http_status)
    if statuses & REFUSED_STATUSES and not statuses & ACCEPTED_STATUSES:
        # Reached only with ANYMAIL IGNORE_RECIPIENT_STATUS, or an ESP's "failed".
        return SendResult(
            Outcome.PERMANENT, http_status=http_status, detail=f"the ESP refused it: {sorted(statuses)}"
        )
    # "unknown", or accepted without a message id: we cannot tell what the ESP did.
    return SendResult(Outcome.UNKNOWN, http_status=http_status, detail=f"Anymail status {status!r}")


def classify_exception(exc: Exception) -> SendResult:
    if isinstance(exc, REFUSED_BEFORE_SENDING):
        return SendResult(Outcome.PERMANENT, detail=f"{type(exc).__name__}: {exc}")
    if isinstance(exc, AnymailRecipientsRefused):  # every recipient rejected or invalid: not sent
        response = exc.response
        return SendResult(
            Outcome.PERMANENT,
            http_status=getattr(response, "status_code", None),
            error_code=_error_code(response),
            detail=_reason(exc, response),
        )
    if isinstance(exc, AnymailAPIError):
        return _api_error_result(exc)
    # Not Anymail's: raised somewhere once the request may have left (a post_send receiver, …).
    return SendResult(Outcome.UNKNOWN, detail=f"unexpected error while sending: {exc!r}")


def _api_error_result(exc: AnymailAPIError) -> SendResult:
    if exc.status_code is None:
        return _no_answer_result(exc)
    response = exc.response
    status = int(exc.status_code)
    code = _error_code(response)
    detail = _reason(exc, response)
    if code == DUPLICATE:  # Brevo's answer to a key it accepted before (only Brevo gets a key)
        return SendResult(Outcome.ACCEPTED_EARLIER, http_status=status, error_code=code, detail=detail)
    if status < 400:  # a success answer Anymail could not read: the ESP may have sent it
        return SendResult(Outcome.UNKNOWN, http_status=status, error_code=code, detail=detail)
    retry_after = retry_after_seconds(response) if isinstance(response, requests.Response) else None
    return status_result(status, code, detail, retry_after)


def _no_answer_result(exc: AnymailAPIError) -> SendResult:
    if isinstance(exc, requests.ConnectTimeout):
        return SendResult(Outcome.TRANSIENT, detail=f"connect timeout: {exc.__cause__}")
    if isinstance(exc.__cause__, requests.ConnectionError):  # refused (transient) or dropped
        return connection_error_result(exc.__cause__)
    # A read timeout, or anything else once the request may have left.
    return SendResult(Outcome.UNKNOWN, detail=f"no answer after sending: {exc.__cause__ or exc}")


def _error_code(response: Any) -> str:
    if not isinstance(response, requests.Response):
        return ""
    body = json_or_empty(response)
    return next((str(body[field]) for field in ERROR_CODE_FIELDS if body.get(field) is not None), "")


def _reason(exc: Exception, response: Any) -> str:
    """Anymail's words, and the ESP's: its answer is where the reason is."""
    words = str(exc.args[0]) if exc.args else f"{getattr(exc, 'esp_name', None) or 'The ESP'} answered"
    if isinstance(response, requests.Response):
        return f"{words}: {response.text[:500]}"
    return words
