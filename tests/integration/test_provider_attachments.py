"""Attachments through the HTTP providers (Resend, Brevo, and Postmark through Anymail), over
real HTTP to the mail simulator: the bytes the provider received are ours (SHA-256), the
simulator lists and serves them (pdftotext reads the invoice back), and an email over the
provider's documented limit is refused before any request. SES: test_ses_provider.py; SMTP:
test_smtp_provider.py."""

import hashlib
import uuid

import pytest
import requests

from notifications.providers import brevo, resend
from notifications.providers.anymail import AnymailProvider
from notifications.providers.attachments import MB, TOO_LARGE
from notifications.providers.base import Attachment, OutboundEmail, Outcome
from notifications.providers.brevo import BrevoProvider
from notifications.providers.catalogue import mail_provider
from notifications.providers.resend import ResendProvider
from tests.pdf_files import pdf_text, pdf_with_text

INVOICE = pdf_with_text("Invoice INV-2024-0042 total 49.90 EUR")


@pytest.fixture
def provider(request, mailsim, settings):
    """Each HTTP provider, sending to the simulator (Postmark's wire for Anymail)."""
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 5.0
    settings.MAIL_PROVIDER = request.param
    if request.param == "anymail":
        settings.ANYMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
        settings.ANYMAIL = {
            "POSTMARK_SERVER_TOKEN": settings.MAIL_PROVIDER_API_KEY,
            "POSTMARK_API_URL": f"{mailsim.url}/",
        }
    mail_provider.cache_clear()
    yield {"resend": ResendProvider, "brevo": BrevoProvider, "anymail": AnymailProvider}[request.param]()
    mail_provider.cache_clear()


PROVIDERS = pytest.mark.parametrize("provider", ["resend", "brevo", "anymail"], indirect=True)


def _email(*attachments: Attachment) -> OutboundEmail:
    return OutboundEmail(
        idempotency_key=str(uuid.uuid4()),
        to="ada@example.com",
        subject="Your invoice",
        text="Your invoice is attached.",
        event_id="event-1",
        from_address="Orders <orders@example.com>",
        attachments=attachments,
    )


@PROVIDERS
def test_an_invoice_arrives_with_its_bytes_and_the_simulator_lists_and_serves_it(provider, mailsim):
    result = provider.send(_email(Attachment("INV-2024-0042.pdf", "application/pdf", INVOICE)))
    assert result.outcome == Outcome.ACCEPTED, result
    [message] = mailsim.messages()
    [listed] = message["attachments"]
    assert listed["filename"] == "INV-2024-0042.pdf"
    assert listed["content_type"] == "application/pdf"  # Brevo's from the extension, as Brevo does
    assert listed["size"] == len(INVOICE)
    assert listed["sha256"] == hashlib.sha256(INVOICE).hexdigest()
    served = requests.get(f"{mailsim.url}{listed['url']}", timeout=5)
    assert served.status_code == 200
    assert served.headers["Content-Type"] == "application/pdf"
    assert served.content == INVOICE
    assert "Invoice INV-2024-0042 total 49.90 EUR" in pdf_text(served.content)


@PROVIDERS
def test_two_attachments_keep_their_order_names_and_types(provider, mailsim):
    notes = b"credit note\n"
    result = provider.send(
        _email(
            Attachment("invoice.pdf", "application/pdf", INVOICE),
            Attachment("credit-note.txt", "text/plain", notes),
        )
    )
    assert result.outcome == Outcome.ACCEPTED, result
    [message] = mailsim.messages()
    # (Django gives a text attachment its charset, which Anymail passes on: the type is the same.)
    listed = [(a["filename"], a["content_type"].split(";")[0], a["sha256"]) for a in message["attachments"]]
    assert listed == [
        ("invoice.pdf", "application/pdf", hashlib.sha256(INVOICE).hexdigest()),
        ("credit-note.txt", "text/plain", hashlib.sha256(notes).hexdigest()),
    ]


@pytest.mark.parametrize(
    ("provider", "limit"),
    [("resend", resend.MAX_EMAIL_BYTES), ("brevo", brevo.MAX_EMAIL_BYTES), ("anymail", 10 * MB)],
    indirect=["provider"],
)
def test_an_email_over_the_providers_limit_is_refused_before_any_request(provider, mailsim, limit):
    # Just over the limit once in base64 (4 bytes for every 3), whatever the provider's figure.
    big = Attachment("scan.pdf", "application/pdf", b"%PDF-" + bytes(limit * 3 // 4))
    result = provider.send(_email(big))
    assert result.outcome == Outcome.PERMANENT
    assert result.error_code == TOO_LARGE
    assert f"limit of {limit / MB:.1f} MB" in result.detail
    assert "nothing was sent" in result.detail
    assert "scan.pdf" in result.detail
    assert mailsim.requests_log() == []
    assert mailsim.messages() == []


@pytest.mark.parametrize("provider", ["anymail"], indirect=True)
def test_anymails_limit_is_a_setting(provider, mailsim, settings):
    settings.ANYMAIL_MAX_MESSAGE_BYTES = 500  # the invoice is 618 bytes
    result = provider.send(_email(Attachment("invoice.pdf", "application/pdf", INVOICE)))
    assert (result.outcome, result.error_code) == (Outcome.PERMANENT, TOO_LARGE)
    assert mailsim.requests_log() == []


@PROVIDERS
def test_an_email_without_attachments_is_sent_as_before_and_lists_none(provider, mailsim):
    assert provider.send(_email()).outcome == Outcome.ACCEPTED
    [message] = mailsim.messages()
    assert message["attachments"] == []


@pytest.mark.parametrize(
    "name",
    ['Rechnung "Q1"; filename=evil.exe.pdf', "Счёт №42 März.pdf", "facture d'été.pdf"],
)
@PROVIDERS
def test_a_name_with_quotes_or_letters_beyond_ascii_arrives_as_it_is(provider, mailsim, name):
    assert provider.send(_email(Attachment(name, "application/pdf", INVOICE))).outcome == Outcome.ACCEPTED
    [message] = mailsim.messages()
    assert message["attachments"][0]["filename"] == name


@PROVIDERS
def test_a_path_in_a_name_is_not_sent_and_a_line_break_is_refused(provider, mailsim):
    assert (
        provider.send(_email(Attachment("../2024/INV-1.pdf", "application/pdf", INVOICE))).outcome
        == Outcome.ACCEPTED
    )
    assert mailsim.messages()[0]["attachments"][0]["filename"] == ".._2024_INV-1.pdf"
    mailsim.reset()
    for hostile in (
        Attachment("a.pdf\r\nBcc: victim@example.com", "application/pdf", INVOICE),
        Attachment("a.pdf", "application/pdf\r\nBcc: victim@example.com", INVOICE),
    ):
        result = provider.send(_email(hostile))
        assert (result.outcome, result.error_code) == (Outcome.PERMANENT, "attachment_invalid"), result
    assert mailsim.requests_log() == []
