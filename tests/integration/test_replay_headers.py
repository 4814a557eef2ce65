"""What a replayed message looks like on the work queue (no worker runs while we look)."""

from io import StringIO

import pytest
from django.core.management import call_command

from messaging.dead_lettering import CLASS_HEADER, COUNT_HEADER, REASON_HEADER
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
