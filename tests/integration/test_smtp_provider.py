"""The SMTP adapter against a real SMTP server process (the simulator's SMTP twin)."""

import hashlib
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from notifications.providers.attachments import TOO_LARGE
from notifications.providers.base import Attachment, OutboundEmail, Outcome
from notifications.providers.smtp import SmtpMailProvider
from tests.integration.conftest import SmtpSim
from tests.pdf_files import pdf_text, pdf_with_text
from tools.drill.processes import ManagedProcess


@pytest.fixture(autouse=True)
def smtp_settings(smtpsim, settings):
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", smtpsim.port
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0


def _email(key: str = "key-1") -> OutboundEmail:
    return OutboundEmail(
        idempotency_key=key, to="ada@example.com", subject="Hello", text="Body", event_id="ev-1"
    )


def test_an_accepted_message_carries_a_stable_message_id_and_the_key(smtpsim):
    result = SmtpMailProvider().send(_email())
    assert result.outcome == Outcome.ACCEPTED
    [message] = smtpsim.messages()
    assert message["message_id"] == result.provider_message_id == "<key-1@orders.local>"
    assert message["idempotency_key"] == "key-1"
    assert message["to"] == ["ada@example.com"]


@pytest.mark.parametrize(
    ("fault", "outcome", "stored"),
    [
        ({"kind": "store_then_drop"}, Outcome.UNKNOWN, 1),
        ({"kind": "stall", "seconds": 3}, Outcome.UNKNOWN, 1),
        ({"kind": "reject_4xx"}, Outcome.TRANSIENT, 0),
        ({"kind": "reject_5xx"}, Outcome.PERMANENT, 0),
    ],
)
def test_each_smtp_failure_is_classified_by_whether_the_server_may_have_the_message(
    smtpsim, fault, outcome, stored
):
    smtpsim.set_fault(**fault, times=1)
    result = SmtpMailProvider().send(_email())
    assert result.outcome == outcome, result
    assert len(smtpsim.messages()) == stored


def test_a_server_that_is_not_there_is_transient(settings):
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 1
    assert SmtpMailProvider().send(_email()).outcome == Outcome.TRANSIENT


def test_smtp_cannot_dedupe_so_it_declares_no_key_window():
    assert SmtpMailProvider.capabilities.key_window is None
    assert not SmtpMailProvider.capabilities.dedupes


@pytest.mark.parametrize(
    ("to", "sent_to"),
    [
        ("ada@straße.de", "ada@xn--strae-oqa.de"),  # not strasse.de, another domain's mailbox
        ("ada@ελλάς.gr", "ada@xn--hxarsa0b.gr"),  # the final sigma kept (IDNA 2003: xn--hxarsa5b)
        ("Ada@München.de", "Ada@xn--mnchen-3ya.de"),  # the local part as written
    ],
)
def test_an_internationalised_domain_is_sent_to_as_mail_software_resolves_it(smtpsim, to, sent_to):
    # Django's SMTP backend would encode the domain with Python's IDNA 2003 codec (ß → ss)
    result = SmtpMailProvider().send(
        OutboundEmail(idempotency_key="key-idn", to=to, subject="Hello", text="Body", event_id="ev-1")
    )
    assert result.outcome == Outcome.ACCEPTED
    [message] = smtpsim.messages()
    assert message["to"] == [sent_to]


INVOICE = pdf_with_text("Invoice INV-2024-0042 total 49.90 EUR")


def _with(*attachments: Attachment) -> OutboundEmail:
    return replace(_email(), attachments=attachments)


def test_an_invoice_arrives_with_its_bytes_and_the_message_keeps_its_headers(smtpsim):
    result = SmtpMailProvider().send(_with(Attachment("INV-42.pdf", "application/pdf", INVOICE)))
    assert result.outcome == Outcome.ACCEPTED, result
    [message] = smtpsim.messages()
    assert message["idempotency_key"] == "key-1"
    assert message["message_id"] == "<key-1@orders.local>"
    [attachment] = message["attachments"]
    assert (attachment["filename"], attachment["content_type"]) == ("INV-42.pdf", "application/pdf")
    assert attachment["size"] == len(INVOICE)
    assert attachment["sha256"] == hashlib.sha256(INVOICE).hexdigest()
    assert "Invoice INV-2024-0042" in pdf_text(Path(attachment["path"]).read_bytes())


@pytest.mark.parametrize(
    ("name", "arrives_as"),
    [
        ('Rechnung "Q1"; filename=evil.exe.pdf', 'Rechnung "Q1"; filename=evil.exe.pdf'),
        ("Счёт №42 März.pdf", "Счёт №42 März.pdf"),
        ("..\\..\\boot.ini.pdf", ".._.._boot.ini.pdf"),
    ],
)
def test_a_hostile_name_is_encoded_in_its_header_and_breaks_no_other(smtpsim, name, arrives_as):
    assert (
        SmtpMailProvider().send(_with(Attachment(name, "application/pdf", INVOICE))).outcome
        == Outcome.ACCEPTED
    )
    [message] = smtpsim.messages()
    assert "Bcc" not in message["header_names"]
    assert message["to"] == ["ada@example.com"]
    [attachment] = message["attachments"]
    assert attachment["filename"] == arrives_as
    assert attachment["sha256"] == hashlib.sha256(INVOICE).hexdigest()


def test_a_line_break_in_a_name_or_type_is_refused_before_connecting(smtpsim):
    for hostile in (
        Attachment("a.pdf\r\nBcc: victim@example.com", "application/pdf", INVOICE),
        Attachment("a.pdf\u2028Bcc: victim@example.com", "application/pdf", INVOICE),
        Attachment("a.pdf", "application/pdf\r\nBcc: victim@example.com", INVOICE),
    ):
        result = SmtpMailProvider().send(_with(hostile))
        assert (result.outcome, result.error_code) == (Outcome.PERMANENT, "attachment_invalid"), result
    assert smtpsim.messages() == []


@pytest.fixture
def small_smtp_server(tmp_path, settings):
    """`small_smtp_server(size_limit)`: an SMTP twin of this test's, announcing that SIZE (0: none)."""
    started: list[ManagedProcess] = []

    def start(size_limit: int) -> SmtpSim:
        data_dir = tmp_path / f"smtp-{len(started)}"
        args = ["--port", "0", "--data-dir", str(data_dir), "--size-limit", str(size_limit)]
        process = ManagedProcess(
            "smtp-small",
            [sys.executable, "-m", "tools.mailsim.smtp", *args],
            env={"PYTHONUNBUFFERED": "1", "PATH": "/usr/bin:/bin"},
            log_path=tmp_path / f"smtp-{len(started)}.log",
        ).start(ready=r"mailsim smtp listening on \S+")
        started.append(process)
        port = int(process.wait_for_log(r"listening on [\d.]+:(\d+)", timeout=1).group(1))
        settings.EMAIL_PORT = port
        return SmtpSim(data_dir, port)

    yield start
    for process in started:
        process.stop()


def test_an_email_over_the_size_the_server_announces_is_refused_before_it_is_offered(small_smtp_server):
    server = small_smtp_server(100_000)
    big = Attachment("scan.pdf", "application/pdf", bytes(80_000))  # ~108 kB in base64
    result = SmtpMailProvider().send(_with(big))
    assert (result.outcome, result.error_code) == (Outcome.PERMANENT, TOO_LARGE)
    assert "limit of 0.1 MB (100,000 bytes)" in result.detail
    assert "the SIZE it announces" in result.detail
    assert server.messages() == []
    # What fits goes.
    assert SmtpMailProvider().send(_with(Attachment("INV-42.pdf", "application/pdf", INVOICE))).outcome == (
        Outcome.ACCEPTED
    )
    assert len(server.messages()) == 1


def test_a_server_announcing_no_size_is_held_to_the_setting(small_smtp_server, settings):
    server = small_smtp_server(0)
    settings.EMAIL_MAX_MESSAGE_BYTES = 5_000
    result = SmtpMailProvider().send(_with(Attachment("scan.pdf", "application/pdf", bytes(10_000))))
    assert (result.outcome, result.error_code) == (Outcome.PERMANENT, TOO_LARGE)
    assert "EMAIL_MAX_MESSAGE_BYTES" in result.detail
    assert server.messages() == []
