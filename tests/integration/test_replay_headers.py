"""What a replayed message looks like on the work queue (no worker runs while we look)."""

from io import StringIO

import pytest
from django.core.management import call_command

from messaging.dead_lettering import CLASS_HEADER, COUNT_HEADER, REASON_HEADER
from messaging.retry_policy import RETRY_SINCE_HEADER, WAITING_SINCE_HEADER
from tests.broker import queue_peek, queue_ready_count
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def test_a_replayed_message_carries_none_of_the_headers_that_would_revoke_or_recount_it(
    mailsim, start_worker
):
    # given a dead letter (the provider rejected the email), and no worker running
    mailsim.set_faults({"kind": "reject"})
    worker = start_worker()
    OrderFactory.create(customer_email="headers@example.com")
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=20, message="dead letter")
    worker.stop()
    [dead] = queue_peek("orders.confirmations.dlq")
    # when
    call_command("replay_dead_letters", "replay", "--yes", stdout=StringIO())
    # then it is back on its own work queue, clean, with its history count
    [replayed] = queue_peek("orders.confirmations")
    headers = replayed["headers"]
    assert headers["id"] == dead["headers"]["id"]
    assert replayed["body"] == dead["body"]
    assert (headers["retries"], headers["expires"], headers.get("eta")) == (0, None, None)
    assert not {"x-death", REASON_HEADER, CLASS_HEADER} & set(headers)
    assert headers[COUNT_HEADER] == 1
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_a_replay_starts_its_retry_budget_again(mailsim, start_worker):
    # given a dead letter that was retried once before the provider refused it: it carries
    # the time of its first failure, from which its event type's retry budget counts
    mailsim.set_faults({"kind": "503", "times": 1}, {"kind": "reject"})
    worker = start_worker()
    OrderFactory.create(customer_email="budget@example.com")
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=40, message="dead letter")
    worker.stop()
    [dead] = queue_peek("orders.confirmations.dlq")
    assert dead["headers"][RETRY_SINCE_HEADER]
    # when
    call_command("replay_dead_letters", "replay", "--yes", stdout=StringIO())
    # then the time it lay in the DLQ does not count as time spent retrying
    [replayed] = queue_peek("orders.confirmations")
    assert not {RETRY_SINCE_HEADER, WAITING_SINCE_HEADER} & set(replayed["headers"])
    assert replayed["headers"]["retries"] == 0
