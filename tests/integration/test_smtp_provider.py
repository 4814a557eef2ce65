"""The SMTP adapter against a real SMTP server process (the simulator's SMTP twin)."""

import pytest

from notifications.providers.base import OutboundEmail, Outcome
from notifications.providers.smtp import SmtpMailProvider


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
