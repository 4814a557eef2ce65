"""The HTTP adapter's classification of what the provider does, over real HTTP. (The retry
delay that follows: tests/unit/test_retry_policy.py.)"""

import pytest

from notifications.providers.base import OutboundEmail, Outcome
from notifications.providers.resend import ResendProvider
from tests.waiting import wait_until
from tools.drill.processes import free_port


def _email(key: str = "key-1", to: str = "ada@example.com") -> OutboundEmail:
    return OutboundEmail(idempotency_key=key, to=to, subject="Hello", text="Body", event_id="event-1")


@pytest.fixture
def provider(mailsim, settings):
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0
    return ResendProvider()


def test_an_accepted_email_has_the_providers_message_id(provider, mailsim):
    result = provider.send(_email())
    assert result.outcome == Outcome.ACCEPTED
    assert result.provider_message_id == mailsim.messages()[0]["id"]


def test_a_resend_with_the_same_key_is_accepted_with_the_same_id_and_nothing_new_is_sent(provider, mailsim):
    first = provider.send(_email())
    second = provider.send(_email())
    assert second.outcome == Outcome.ACCEPTED
    assert second.provider_message_id == first.provider_message_id
    assert len(mailsim.messages()) == 1


@pytest.mark.parametrize(
    ("rule", "outcome", "status"),
    [
        ({"kind": "503", "retry_after": 4}, Outcome.TRANSIENT, 503),
        ({"kind": "429", "retry_after": 2}, Outcome.TRANSIENT, 429),
        ({"kind": "reject"}, Outcome.PERMANENT, 422),
        ({"kind": "accept_then_drop"}, Outcome.UNKNOWN, None),
        ({"kind": "stall", "seconds": 2}, Outcome.UNKNOWN, None),
        ({"kind": "stall_then_reject", "seconds": 2}, Outcome.UNKNOWN, None),
        ({"kind": "hold", "seconds": 2}, Outcome.UNKNOWN, None),
    ],
)
def test_each_provider_fault_is_classified(provider, mailsim, rule, outcome, status):
    mailsim.set_faults({**rule, "times": 1})
    result = provider.send(_email())
    assert result.outcome == outcome
    assert result.http_status == status
    if "retry_after" in rule:
        assert result.retry_after == rule["retry_after"]


def test_a_second_request_while_the_first_holds_the_key_is_in_flight(provider, mailsim):
    import threading

    mailsim.set_faults({"kind": "hold", "seconds": 1.5, "times": 1})
    slow = threading.Thread(target=provider.send, args=(_email(),))
    slow.start()
    import time

    time.sleep(0.5)
    result = ResendProvider().send(_email())
    slow.join()
    assert result.outcome == Outcome.IN_FLIGHT
    wait_until(lambda: mailsim.messages(), timeout=5, message="the held request completes")
    assert len(mailsim.messages()) == 1


def test_a_refused_connection_is_transient_because_nothing_was_sent(settings):
    settings.MAIL_PROVIDER_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    assert ResendProvider().send(_email()).outcome == Outcome.TRANSIENT


def test_a_wrong_api_key_is_permanent(mailsim, settings):
    settings.MAIL_PROVIDER_API_KEY = "wrong"
    result = ResendProvider().send(_email())
    assert result.outcome == Outcome.PERMANENT
    assert result.http_status == 401


def test_every_send_carries_our_key_as_a_tag_and_never_the_address(provider, mailsim):
    provider.send(_email(key="6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"))
    [message] = mailsim.messages()
    assert message["wire"] == "resend"
    assert message["tags"] == [{"name": "idempotency_key", "value": "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"}]
