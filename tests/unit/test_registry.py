"""The event registry and the envelope: what the backbone knows of events comes from the
catalogues settings name, and only from them."""

import re
import sys
import types
import uuid
from datetime import UTC, datetime

import pytest

from messaging.envelope import Envelope, EnvelopeError, envelope_parse
from messaging.registry import EventType, Guarantee, UnknownEventType, event_type_get, event_types

PRODUCT_CATALOGUES = ["orders.events", "notifications.events"]


def _event_type(name: str) -> EventType:
    return EventType(
        name=name,
        aggregate="order",
        queue="orders.test",
        handler="tests.handlers.none",
        inbox_key="test",
        guarantee=Guarantee.EFFECT_ONCE,
        schema_versions=frozenset({1, 2}),
        why="a test",
    )


def test_the_product_registers_each_event_type_on_one_queue():
    registered = event_types(PRODUCT_CATALOGUES)
    assert {name: event.queue for name, event in registered.items()} == {
        "order.created": "orders.confirmations",
        "order.edited": "orders.confirmations",  # a change is confirmed as the order was
        "order.invoiced": "orders.confirmations",  # an invoice issued later, as the confirmation
        "order.cancelled": "orders.cancellations",
        "order.shipped": "orders.shipments",
        "order.refunded": "orders.refunds",
        # a parcel's news shares its "shipped" email's queue
        "parcel.in_transit": "orders.shipments",  # only where PARCEL_IN_TRANSIT_EMAIL is on
        "parcel.out_for_delivery": "orders.shipments",
        "parcel.delivered": "orders.shipments",
        "parcel.delivery_failed": "orders.shipments",
        "order.paid": "orders.analytics",
        "mail.provider_event": "notifications.provider_events",
    }
    assert registered["order.paid"].guarantee == Guarantee.AT_LEAST_ONCE
    assert registered["order.created"].record_hook  # the pending notification, in the order's commit


def test_an_event_type_declared_twice_is_refused(monkeypatch):
    twice = types.ModuleType("catalogue_twice")
    vars(twice)["EVENT_TYPES"] = [_event_type("thing.happened"), _event_type("thing.happened")]
    monkeypatch.setitem(sys.modules, "catalogue_twice", twice)
    with pytest.raises(ValueError, match=re.escape("'thing.happened' is declared twice")):
        event_types(["catalogue_twice"])


def test_an_event_type_no_catalogue_declares_is_unknown():
    with pytest.raises(UnknownEventType, match=re.escape("'order.delivered' is not registered")):
        event_type_get("order.delivered")


def test_the_envelope_carries_the_aggregate_id_under_the_aggregate_s_name():
    # given
    envelope = Envelope(
        event_id=uuid.uuid4(),
        event_type=event_type_get("order.created"),
        schema_version=1,
        aggregate_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
    )
    # when
    message = envelope.as_message()
    # then: the wire format the order events have always had
    assert set(message) == {"event_id", "event_type", "schema_version", "order_id", "occurred_at"}
    assert envelope_parse(message) == envelope


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda m: m.pop("order_id"), "lacks the field(s): order_id"),
        (lambda m: m.update(event_type="order.delivered"), "'order.delivered' is unknown"),
        (lambda m: m.update(schema_version=True), "Schema version True of order.created is not supported"),
        (lambda m: m.update(extra=1), "unknown field(s): extra"),
        (lambda m: m.update(order_id="not-a-uuid"), "malformed field"),
    ],
    ids=["missing id", "unknown type", "bool version", "extra field", "bad uuid"],
)
def test_a_malformed_envelope_says_what_is_wrong(change, reason):
    message = {
        "event_id": str(uuid.uuid4()),
        "event_type": "order.created",
        "schema_version": 1,
        "order_id": str(uuid.uuid4()),
        "occurred_at": datetime.now(UTC).isoformat(),
    }
    change(message)
    with pytest.raises(EnvelopeError, match=re.escape(reason)):
        envelope_parse(message)
