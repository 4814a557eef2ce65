"""An SMTP mail provider, through Django's SMTP email backend.

SMTP has no idempotency key: a server that received the whole message and then lost the
connection before its reply may have queued it (RFC 1047). So this adapter says it cannot
dedupe (`NO_DEDUPE`), and such an unknown outcome goes to a person instead
of being resent. Failures before the message left are safe to retry: a refused connection,
or a 4xx reply, which tells the client the server did not take the message.
"""

import contextlib
import smtplib

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.core.mail.backends.base import BaseEmailBackend

from infra.addresses import address_for_sending
from notifications.providers.attachments import invalid_attachment, sendable_filename, too_large
from notifications.providers.base import NO_DEDUPE, OutboundEmail, Outcome, SendResult


class SmtpMailProvider:
    name = "smtp"
    capabilities = NO_DEDUPE  # SMTP cannot recognise a resend

    @classmethod
    def configuration_problems(cls) -> list[str]:
        if not settings.EMAIL_HOST:
            return ["EMAIL_HOST is empty: the SMTP provider needs a server to send through."]
        return []

    @classmethod
    def delivery_webhook(cls) -> None:
        return None  # an SMTP server posts no delivery events

    def send(self, email: OutboundEmail) -> SendResult:
        invalid = invalid_attachment(email)
        if invalid:
            return invalid
        connection = get_connection(
            "django.core.mail.backends.smtp.EmailBackend",
            fail_silently=False,
            timeout=settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS,
        )
        try:
            connection.open()  # its own step: a failure here happened before anything was sent
        except (OSError, smtplib.SMTPException) as exc:
            return SendResult(Outcome.TRANSIENT, detail=f"could not connect to the SMTP server: {exc!r}")
        message = _message(email, connection)
        if email.attachments:
            refused = _refused_for_size(email, message, connection)
            if refused:
                with contextlib.suppress(OSError, smtplib.SMTPException):
                    connection.close()  # after EHLO only: no message was offered
                return refused
        try:
            connection.send_messages([message])
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            outcome = Outcome.TRANSIENT if all(400 <= code < 500 for code in codes) else Outcome.PERMANENT
            return SendResult(
                outcome, error_code=",".join(map(str, codes)), detail=f"recipient refused: {exc.recipients}"
            )
        except smtplib.SMTPResponseException as exc:  # a reply with a code: the server decided
            outcome = Outcome.TRANSIENT if 400 <= exc.smtp_code < 500 else Outcome.PERMANENT
            return SendResult(outcome, http_status=None, error_code=str(exc.smtp_code), detail=_text(exc))
        except (OSError, smtplib.SMTPException) as exc:  # dropped or timed out mid-conversation
            return SendResult(Outcome.UNKNOWN, detail=f"the SMTP conversation broke off: {exc!r}")
        finally:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                connection.close()  # the conversation is over either way
        return SendResult(Outcome.ACCEPTED, provider_message_id=_message_id(email))


def _refused_for_size(
    email: OutboundEmail, message: EmailMessage, connection: BaseEmailBackend
) -> SendResult | None:
    """The server's limit is the SIZE it announces in its EHLO answer (RFC 1870); a server that
    announces none, or SIZE 0 ("no fixed maximum"), gets EMAIL_MAX_MESSAGE_BYTES."""
    smtp = getattr(connection, "connection", None)
    try:
        assert smtp is not None  # open() succeeded
        smtp.ehlo_or_helo_if_needed()  # sendmail would say EHLO next; it is said once
    except (OSError, smtplib.SMTPException) as exc:
        return SendResult(Outcome.TRANSIENT, detail=f"the SMTP server did not answer EHLO: {exc!r}")
    announced = smtp.esmtp_features.get("size", "").strip()
    if announced.isdigit() and int(announced) > 0:
        limit, source = int(announced), "the SIZE it announces"
    else:
        limit, source = settings.EMAIL_MAX_MESSAGE_BYTES, "EMAIL_MAX_MESSAGE_BYTES, as it announces no SIZE"
    # Exactly what Django's backend sends (its _send: as_bytes with CRLF line ends).
    size = lambda: len(message.message().as_bytes(linesep="\r\n"))  # noqa: E731
    counted = f"the MIME message, its attachments in base64; the limit is {source}"
    return too_large(email, "the SMTP server", limit, size, counted)


def _message(email: OutboundEmail, connection: BaseEmailBackend) -> EmailMessage:
    message = EmailMessage(
        subject=email.subject,
        body=email.text,
        from_email=email.from_address,
        to=[address_for_sending(email.to)],  # the domain as IDNA 2008 gives it (infra/addresses.py)
        connection=connection,
        headers={
            # Stable per email: a receiving system that dedupes by Message-ID sees one message.
            "Message-ID": _message_id(email),
            "X-Idempotency-Key": email.idempotency_key,
            "X-Event-Id": email.event_id,
        },
    )
    for attachment in email.attachments:
        # Django encodes the name (RFC 2231 when it is not ASCII, quotes escaped).
        message.attach(sendable_filename(attachment), attachment.content, attachment.content_type)
    return message


def _message_id(email: OutboundEmail) -> str:
    return f"<{email.idempotency_key}@orders.local>"


def _text(exc: smtplib.SMTPResponseException) -> str:
    error = exc.smtp_error
    return error.decode(errors="replace") if isinstance(error, bytes) else str(error)
