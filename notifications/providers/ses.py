"""Amazon SES v2 `SendEmail` through boto3 (MAIL_PROVIDER=ses).

SES has no request idempotency (`SendEmail` takes no client token), so this adapter cannot
dedupe: an unknown outcome goes to a person instead of being resent. Our key travels as a
message tag, which SES puts on every event it publishes for the configuration set
(AWS_SES_CONFIGURATION_SET), so an event finds its notification.

botocore retries on its own by default, and it counts a read timeout or a dropped
connection as retryable: a silent second email. The client makes exactly one attempt
(`total_max_attempts=1`; botocore's MaxAttemptsChecker allows another only while
`attempt_number < total_max_attempts`, and the explicit client setting wins over
AWS_MAX_ATTEMPTS and AWS_RETRY_MODE). Its urllib3 pool has `Retry(False)` underneath.
"""

import json
from dataclasses import replace
from email.utils import parseaddr
from typing import Any

import boto3  # type: ignore[import-untyped]
from botocore.config import Config  # type: ignore[import-untyped]
from botocore.exceptions import (  # type: ignore[import-untyped]
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    CredentialRetrievalError,
    EndpointConnectionError,
    NoCredentialsError,
    ParamValidationError,
    PartialCredentialsError,
    ProxyConnectionError,
)
from django.conf import settings

from notifications.providers.anymail_webhooks import AnymailTrackingWebhook, anymail_tracking_webhook
from notifications.providers.attachments import MB, refused_attachments
from notifications.providers.base import (
    ANY_NUMBER_OF_CALLS,
    KEY_TAG,
    NO_DEDUPE,
    OutboundEmail,
    Outcome,
    SendResult,
)
from notifications.providers.raw_message import mime_message

# Raised before the request left (refused, unresolvable, no connection in time, no proxy):
# SES never saw it.
NOT_CONNECTED = (ConnectTimeoutError, EndpointConnectionError, ProxyConnectionError)
# The request is signed before it is sent: without credentials nothing left, and a role's
# credentials that failed to refresh can come back.
NO_CREDENTIALS = (NoCredentialsError, PartialCredentialsError, CredentialRetrievalError)
# SES turned the request away for the account's rate, quota or pause, not for the message
# (SES v2 API reference, SendEmail errors; the SES guide says a throttled email is dropped,
# not queued, and to retry later): nothing was sent, and the same email can go once it passes.
RETRY_LATER_CODES = frozenset(
    {
        "TooManyRequestsException",  # 429: too many requests to the operation
        "ThrottlingException",  # the common AWS code: sending rate or daily quota exceeded
        "Throttling",
        "LimitExceededException",  # 400: a limit of the account
        # 400: sending is paused (by the account's owner, or during an AWS review) and can
        # resume; "permanently restricted" is AccountSuspendedException, which is permanent.
        "SendingPausedException",
    }
)
# The SES developer guide, "Service quotas" and "Working with email attachments": a message
# of at most 40 MB through the v2 API (SendEmail) and SMTP, "including attachments", counted
# on the MIME message (base64-encoded attachments); the v1 API (SendRawEmail) allows 10 MB.
# This client is v2.
MAX_MESSAGE_BYTES = 40 * MB


class SesProvider:
    name = "ses"
    # SendEmail has no idempotency key; boto3's client is thread-safe.
    capabilities = replace(NO_DEDUPE, concurrent_calls=ANY_NUMBER_OF_CALLS)

    def __init__(self) -> None:
        # One client per process: creating it reads the credential chain; sending reuses its pool.
        self._client = boto3.session.Session().client(
            "sesv2",
            region_name=settings.AWS_SES_REGION,
            endpoint_url=settings.AWS_SES_ENDPOINT_URL or None,
            config=Config(
                connect_timeout=settings.MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS,
                read_timeout=settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS,
                # One attempt, never a hidden resend: only the task retries, with a record.
                retries={"total_max_attempts": 1, "mode": "standard"},
            ),
        )

    @classmethod
    def configuration_problems(cls) -> list[str]:
        problems = []
        if not settings.AWS_SES_REGION:
            problems.append("AWS_SES_REGION is empty: SES needs the AWS region that sends (eu-west-1, …).")
        endpoint = settings.AWS_SES_ENDPOINT_URL
        if endpoint and not endpoint.startswith(("http://", "https://")):
            problems.append(f"AWS_SES_ENDPOINT_URL {endpoint!r} is not an http(s) URL.")
        if not parseaddr(settings.MAIL_FROM_ADDRESS)[1]:
            problems.append(f"MAIL_FROM_ADDRESS {settings.MAIL_FROM_ADDRESS!r} has no address for SES.")
        try:
            credentials = boto3.session.Session().get_credentials()
        except BotoCoreError as exc:  # a named profile that does not exist, a broken config file
            problems.append(f"AWS credentials cannot be read: {exc}")
        else:
            if credentials is None:
                problems.append(
                    "No AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                    "or a profile or role that boto3's credential chain finds."
                )
        return problems

    @classmethod
    def delivery_webhook(cls) -> AnymailTrackingWebhook | None:
        # SES publishes through SNS, whose posts Anymail's SES view reads.
        return anymail_tracking_webhook("amazon_ses")

    def send(self, email: OutboundEmail) -> SendResult:
        counted = "the MIME message, its attachments in base64"
        refused = refused_attachments(email, "SES", MAX_MESSAGE_BYTES, lambda: _raw_size(email), counted)
        if refused:
            return refused
        try:
            response = self._client.send_email(**send_email_request(email))
        except ClientError as exc:
            return classify_client_error(exc)
        except NOT_CONNECTED as exc:
            return SendResult(Outcome.TRANSIENT, detail=f"could not connect to SES: {exc}")
        except NO_CREDENTIALS as exc:
            return SendResult(Outcome.TRANSIENT, detail=f"no AWS credentials to sign the request: {exc}")
        except ParamValidationError as exc:  # botocore refused the parameters before sending
            return SendResult(Outcome.PERMANENT, detail=str(exc))
        except BotoCoreError as exc:
            # ReadTimeoutError, ConnectionClosedError, SSLError and anything else once the
            # request may have left: SES may have sent the email.
            return SendResult(Outcome.UNKNOWN, detail=f"no answer from SES after sending: {exc}")
        message_id = str(response.get("MessageId", ""))
        if not message_id:  # accepted, but we cannot tell which message
            return SendResult(Outcome.UNKNOWN, http_status=_status(response), detail="no MessageId")
        return SendResult(Outcome.ACCEPTED, provider_message_id=message_id, http_status=_status(response))


def send_email_request(email: OutboundEmail) -> dict[str, Any]:
    request: dict[str, Any] = {
        "FromEmailAddress": email.from_address,
        "Destination": {"ToAddresses": [email.to]},
        "Content": _content(email),
        # Our key only, never the address: it comes back on every SES event. (A tag value
        # allows letters, digits, _ and -: our keys are UUIDs.)
        "EmailTags": [{"Name": KEY_TAG, "Value": email.idempotency_key}],
    }
    if settings.AWS_SES_CONFIGURATION_SET:
        request["ConfigurationSetName"] = settings.AWS_SES_CONFIGURATION_SET
    return request


def _headers(email: OutboundEmail) -> list[tuple[str, str]]:
    return [
        ("X-Event-Id", email.event_id),
        # Anymail's SES tracking webhook reads metadata from this header of the event's
        # `mail.headers` (anymail/webhooks/amazon_ses.py): our key again.
        ("X-Metadata", json.dumps({KEY_TAG: email.idempotency_key})),
    ]


def _raw_size(email: OutboundEmail) -> int:
    return len(mime_message(email, _headers(email)))


def _content(email: OutboundEmail) -> dict[str, Any]:
    if email.attachments:
        # The whole MIME message, our headers in it; boto3 base64-encodes it for the wire.
        return {"Raw": {"Data": mime_message(email, _headers(email))}}
    body = {"Text": {"Data": email.text, "Charset": "UTF-8"}}
    if email.html:
        body["Html"] = {"Data": email.html, "Charset": "UTF-8"}
    headers = [{"Name": name, "Value": value} for name, value in _headers(email)]
    subject = {"Data": email.subject, "Charset": "UTF-8"}
    return {"Simple": {"Subject": subject, "Body": body, "Headers": headers}}


def classify_client_error(exc: ClientError) -> SendResult:
    """SES answered with an error: by its code, then by the HTTP status."""
    error = exc.response.get("Error", {})
    code = str(error.get("Code", ""))
    detail = str(error.get("Message", "")) or str(exc)
    status = _status(exc.response)
    if code in RETRY_LATER_CODES or status == 429:
        return SendResult(Outcome.TRANSIENT, http_status=status, error_code=code, detail=detail)
    if status is None or status >= 500:
        # InternalFailure, ServiceUnavailable: SES failed while handling it and may have sent it.
        return SendResult(Outcome.UNKNOWN, http_status=status, error_code=code, detail=detail)
    # MessageRejected, MailFromDomainNotVerifiedException, AccountSuspendedException,
    # BadRequestException, NotFoundException (the configuration set), AccessDenied, …:
    # SES refused this email and will refuse it again as it is.
    return SendResult(Outcome.PERMANENT, http_status=status, error_code=code, detail=detail)


def _status(response: dict[str, Any]) -> int | None:
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return int(status) if status is not None else None
