"""Writing an event through the backbone's one public entry point, messaging.outbox.event_record."""

import uuid

import pytest
from django.db import transaction

from messaging.models import OutboxEvent
from messaging.outbox import event_record
from messaging.registry import UnknownEventType


@pytest.mark.django_db
def test_an_event_nobody_consumes_is_refused_before_anything_is_written():
    # an event no catalogue declares would wait in the outbox forever: refused at write time
    with pytest.raises(UnknownEventType, match=r"order\.delivered"), transaction.atomic():
        event_record(event_type="order.delivered", aggregate_id=uuid.uuid4())
    assert not OutboxEvent.objects.exists()


@pytest.mark.django_db(transaction=True)  # no test transaction around it: autocommit, as a bug would run
def test_an_event_outside_the_change_s_transaction_is_refused():
    with pytest.raises(RuntimeError, match="inside the transaction"):
        event_record(event_type="order.created", aggregate_id=uuid.uuid4())
