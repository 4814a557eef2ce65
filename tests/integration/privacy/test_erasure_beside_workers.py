"""An erasure while a real worker sends the customer's emails: the one held at the provider
when the erasure starts is waited for and goes out once; the ones not sent yet never go out,
however their events reach the worker afterwards; nothing is sent to the erased order's empty
address, and no email is left between states."""

import pytest
from django.core.management import call_command

from messaging.relay.relay import relay_outbox_sweep
from notifications.delivery.rules import ERASED_REASON
from notifications.models import Notification
from privacy.models import Erasure
from tests.factories import OrderFactory, UnpublishedOrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
ADDRESS = "ada@example.com"


def test_the_email_in_flight_goes_once_and_the_others_never(mailsim, start_worker):
    # given: the provider holds the first of Ada's emails 4 s; three more of her orders wait
    # in the outbox (their events not yet published), as after a crash or a broker outage
    mailsim.set_faults({"kind": "hold", "seconds": 4, "to_contains": "ada@", "times": 1})
    start_worker()
    first = OrderFactory.create(customer_email=ADDRESS)
    waiting = [UnpublishedOrderFactory.create(customer_email=ADDRESS) for _ in range(3)]
    wait_until(
        lambda: Notification.objects.filter(order=first, status="sending").exists(),
        timeout=30,
        message="the first email in flight",
    )
    # when: the customer is erased meanwhile (the command waits for the email in flight)
    call_command("customer_erase", ADDRESS, "--yes", "--wait", "60")
    erased_at = Erasure.objects.get().erased_at
    # and the waiting orders' events reach the worker afterwards
    relay_outbox_sweep()
    wait_until(
        lambda: not Notification.objects.filter(status__in=["pending", "sending"]).exists(),
        timeout=30,
        message="every email ended",
    )
    # then: the first was sent, once, before the erasure; the others were not sent, and say why
    sent = Notification.objects.get(order=first)
    assert sent.status == "sent"
    assert sent.sent_at is not None
    assert sent.sent_at <= erased_at
    others = Notification.objects.filter(order__in=waiting)
    assert [(email.status, email.last_error) for email in others] == [("skipped", ERASED_REASON)] * 3
    to_ada = [message for message in mailsim.messages() if message["to"] == [ADDRESS]]
    assert len(to_ada) == 1
    assert all(message["to"] and message["to"] != [""] for message in mailsim.messages())
