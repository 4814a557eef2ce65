"""The order of an order's emails as the customer reads them, whatever order the broker
delivers their events in: every permutation of the deliveries, each event delivered twice
(at least once, as RabbitMQ may), against the real simulator. A delivery that must wait comes
back after the others, as its retry would (the task's WaitError), and nothing is lost.

The events' changes are all committed before the first delivery, so each case is the same
database state read in another order: "confirmed" before "on its way" before "refunded"; and
for an order cancelled before any email went out, only the cancellation (telling its refund)."""

import itertools
from collections import deque

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import InFlightError, WaitError
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.changes import order_pay
from orders.content import ShopOrder
from orders.models import Order
from orders.refunds import RefundRequest, order_cancel_with_refund, refund_create
from orders.services import order_create
from orders.shipments import shipment_create
from tests.shop_order_bodies import shop_order_body

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_invoices(settings):
    """These orders are paid after their placing: their invoice would have an email of its own,
    whose place among the others is tested with the invoices (tests/integration/invoices/)."""
    settings.INVOICE_ISSUED_WHEN = "off"


DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
MAX_DELIVERIES = 40  # a case that has not settled by then is a failure, not a loop


def _order(address: str) -> Order:
    """A shop's order, placed and paid (its refunds give back what was paid)."""
    shop_order = ShopOrder(shop_order_body(customer_email=address))
    order = order_create(
        customer_email=address, amount=shop_order.amount, currency="EUR", shop_order=shop_order
    )
    return order_pay(order_id=order.id, api_token=None).order


def _envelopes(order: Order, *event_types: str) -> list[dict]:
    about = {str(order.id)} | {str(s) for s in order.shipments.values_list("id", flat=True)}
    about |= {str(r) for r in order.refunds.values_list("id", flat=True)}
    events = {e.event_type: e.payload for e in OutboxEvent.objects.filter(aggregate_id__in=about)}
    return [events[event_type] for event_type in event_types]


def _deliver_in_turn(envelopes: list[dict]) -> int:
    """Deliver each envelope; one that must wait goes to the back. Returns the deliveries made."""
    queue, made = deque(envelopes), 0
    while queue and made < MAX_DELIVERIES:
        envelope = queue.popleft()
        made += 1
        try:
            event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
        except (WaitError, InFlightError):
            queue.append(envelope)
    assert not queue, f"{len(queue)} deliveries still waiting after {made}"
    return made


def _subjects_read(mailsim, address: str) -> list[str]:
    sent = sorted((m for m in mailsim.messages() if m["to"] == [address]), key=lambda m: m["accepted_at"])
    return [m["subject"] for m in sent]


ORDER_OF_THREE = list(itertools.permutations(range(3)))


@pytest.mark.parametrize("turns", ORDER_OF_THREE, ids=["-".join(map(str, t)) for t in ORDER_OF_THREE])
def test_confirmed_then_shipped_then_refunded_whatever_the_delivery_order(mailsim, turns):
    # given an order, a parcel and the refund of its return, all committed
    order = _order("turns@example.com")
    shipment_create(order_id=order.id, api_token=None, shop_shipment_id="P1", carrier="DHL")
    refund_create(
        order_id=order.id,
        api_token=None,
        request=RefundRequest(
            shop_refund_id="R1", amount_minor=990, reason="Returned", shop_shipment_id="P1"
        ),
    )
    envelopes = _envelopes(order, "order.created", "order.shipped", "order.refunded")
    in_turn = [envelopes[i] for i in turns]
    # when the broker delivers them in this order, and each once more afterwards
    _deliver_in_turn(in_turn + in_turn)
    # then
    assert _subjects_read(mailsim, "turns@example.com") == [
        "Your order 1001 at Example Shop is confirmed",
        "Your order 1001 at Example Shop is on its way",
        "We refund €9.90 for your order 1001",
    ]
    assert set(Notification.objects.filter(order=order).values_list("status", flat=True)) == {"sent"}


@pytest.mark.parametrize("turns", ORDER_OF_THREE, ids=["-".join(map(str, t)) for t in ORDER_OF_THREE])
def test_cancelled_before_any_email_only_the_cancellation_goes_whatever_the_order(mailsim, turns):
    # given an order, a parcel, then the cancellation with its refund, all committed
    order = _order("cancelled@example.com")
    shipment_create(order_id=order.id, api_token=None, shop_shipment_id="P1", carrier="DHL")
    order_cancel_with_refund(
        order_id=order.id, api_token=None, refund=RefundRequest(shop_refund_id="C1", amount_minor=3480)
    )
    envelopes = _envelopes(order, "order.created", "order.shipped", "order.cancelled")
    in_turn = [envelopes[i] for i in turns]
    # when
    _deliver_in_turn(in_turn + in_turn)
    # then the customer reads one email, which tells the refund
    [message] = [m for m in mailsim.messages() if m["to"] == ["cancelled@example.com"]]
    assert message["subject"] == "Your order 1001 at Example Shop is cancelled"
    assert "We refund €34.80 to you" in message["text"]
    statuses = dict(Notification.objects.filter(order=order).values_list("kind", "status"))
    assert statuses == {
        "order_confirmation": "skipped",
        "order_shipment": "skipped",
        "order_cancellation": "sent",
    }
