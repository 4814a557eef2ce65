"""Any ESP django-anymail supports (MAIL_PROVIDER=anymail), configured by Anymail's own
settings: ANYMAIL_BACKEND names Anymail's EmailBackend for the ESP
(`anymail.backends.postmark.EmailBackend`, …) and the ANYMAIL dict holds what that backend
reads (config/settings/pipeline.py).

Anymail has no idempotency of its own, and most ESPs have none at all (Postmark, Mailgun,
Mailjet, SparkPost, MailerSend, SendGrid): such a backend cannot dedupe, and an unknown
outcome goes to a person. Only Brevo's key is declared below, because Anymail passes extra
headers into Brevo's JSON `headers`, where Brevo reads it. For Brevo and Resend the dedicated
providers (MAIL_PROVIDER=brevo, resend) are still preferred: Resend's key is an HTTP header
Anymail cannot send, and ours are exact to both wires and tested against the simulator.

Anymail's requests session is a plain `requests.Session()` (anymail/backends/base_requests.py):
its adapters keep requests' default `max_retries=0` (`Retry(0, read=False)`), so nothing
below us resends. Our connect and read timeouts replace ANYMAIL_REQUESTS_TIMEOUT, so the
task's time limits, checked against them at start-up, hold.
"""

from dataclasses import replace

from anymail.backends.base import AnymailBaseBackend
from anymail.message import AnymailMessage
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.utils.module_loading import import_string

from notifications.providers.anymail_outcomes import classify_exception, classify_status
from notifications.providers.anymail_webhooks import AnymailTrackingWebhook, anymail_tracking_webhook
from notifications.providers.attachments import json_api_size, refused_attachments, sendable_filename
from notifications.providers.base import KEY_TAG, NO_DEDUPE, OutboundEmail, Outcome, SendResult
from notifications.providers.brevo import BrevoProvider
from notifications.providers.http_session import provider_timeout

# Backends whose ESP remembers a key: what it promises, and the mail header that carries it.
# One call at a time: a Django email backend is not made to be shared by threads.
_BREVO_THROUGH_ANYMAIL = replace(BrevoProvider.capabilities, concurrent_calls=1)
KEYED_BACKENDS = {
    "anymail.backends.brevo.EmailBackend": (_BREVO_THROUGH_ANYMAIL, "idempotencyKey"),
    "anymail.backends.sendinblue.EmailBackend": (_BREVO_THROUGH_ANYMAIL, "idempotencyKey"),
}
# Anymail's SES backend builds its own boto3 client with botocore's retries, which resend on
# a read timeout; MAIL_PROVIDER=ses makes one attempt.
REFUSED_BACKENDS = {
    "anymail.backends.amazon_ses.EmailBackend": "use MAIL_PROVIDER=ses (AWS_SES_REGION, …): Anymail's "
    "SES client keeps botocore's retries, which resend an email after a read timeout.",
}


class AnymailProvider:
    name = "anymail"
    capabilities = NO_DEDUPE  # most ESPs; an instance declares its backend's (KEYED_BACKENDS)

    def __init__(self) -> None:
        self.capabilities, self._key_header = KEYED_BACKENDS.get(settings.ANYMAIL_BACKEND, (NO_DEDUPE, ""))
        self._connection = anymail_connection()
        # Opened once: every send reuses the backend's session (and its kept-alive connection).
        self._connection.open()

    @classmethod
    def configuration_problems(cls) -> list[str]:
        path = settings.ANYMAIL_BACKEND
        if not path:
            return [
                "ANYMAIL_BACKEND is empty: name Anymail's EmailBackend for the ESP "
                "(anymail.backends.postmark.EmailBackend, …)."
            ]
        if path in REFUSED_BACKENDS:
            return [f"ANYMAIL_BACKEND={path}: {REFUSED_BACKENDS[path]}"]
        try:
            connection = anymail_connection()
        except ImportError as exc:
            return [f"ANYMAIL_BACKEND={path} cannot be imported ({exc})."]
        except ImproperlyConfigured as exc:  # AnymailConfigurationError: a missing token, …
            return [f"ANYMAIL_BACKEND={path}: {exc}"]
        if not isinstance(connection, AnymailBaseBackend):
            return [f"ANYMAIL_BACKEND={path} is not an Anymail backend (Django's SMTP: MAIL_PROVIDER=smtp)."]
        api_url = getattr(connection, "api_url", None)
        if api_url is not None and not str(api_url).startswith(("http://", "https://")):
            return [f"ANYMAIL_BACKEND={path}: its API URL {api_url!r} is not an http(s) URL."]
        return []

    @classmethod
    def delivery_webhook(cls) -> AnymailTrackingWebhook | None:
        """The tracking webhook of ANYMAIL_BACKEND's ESP (postmark's for
        anymail.backends.postmark.EmailBackend, or a subclass of it); None for a backend
        that is not an ESP's (Anymail's test and console backends)."""
        try:
            backend = import_string(settings.ANYMAIL_BACKEND)
        except ImportError:  # configuration_problems() says so
            return None
        for ancestor in backend.__mro__:
            esp_module = ancestor.__module__.removeprefix("anymail.backends.")
            if esp_module != ancestor.__module__:
                return anymail_tracking_webhook(esp_module)
        return None

    def send(self, email: OutboundEmail) -> SendResult:
        # ANYMAIL_MAX_MESSAGE_BYTES: Anymail's ESPs differ, the setting says which (its comment).
        limit, counted = settings.ANYMAIL_MAX_MESSAGE_BYTES, "its attachments in base64, with the text"
        refused = refused_attachments(email, "Anymail's ESP", limit, lambda: json_api_size(email), counted)
        if refused:
            return refused
        message = self._message(email)
        try:
            sent = message.send()
        except Exception as exc:  # each one is classified; one we do not know as unknown
            return classify_exception(exc)
        if not sent:  # a pre_send receiver cancelled it: nothing went to the ESP
            return SendResult(Outcome.PERMANENT, detail="Anymail did not send it (cancelled before sending)")
        return classify_status(message.anymail_status)

    def _message(self, email: OutboundEmail) -> AnymailMessage:
        headers = {"X-Event-Id": email.event_id}
        if self._key_header:
            headers[self._key_header] = email.idempotency_key
        message = AnymailMessage(
            subject=email.subject,
            body=email.text,
            from_email=email.from_address,
            to=[email.to],
            headers=headers,
            connection=self._connection,
            # Our key only, never the address: Anymail sends metadata so that the ESP's
            # tracking events bring it back.
            metadata={KEY_TAG: email.idempotency_key},
        )
        if email.html:
            message.attach_alternative(email.html, "text/html")
        for attachment in email.attachments:
            message.attach(sendable_filename(attachment), attachment.content, attachment.content_type)
        return message


def anymail_connection() -> BaseEmailBackend:
    # Raises ImportError for a path that is not there, and Anymail's
    # AnymailConfigurationError for a setting its backend needs and does not find.
    return get_connection(settings.ANYMAIL_BACKEND, fail_silently=False, timeout=provider_timeout())
