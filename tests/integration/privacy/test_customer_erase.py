"""One customer erased at their request, as an auditor would check it: a Shopify order's life
(its order with lines and addresses, a parcel, a refund) emailed by a real worker, then
`manage.py customer_erase`; afterwards a dump of the whole database holds neither the address
nor the name nor the street, while the order's amounts and the emails' history stay, another
customer's data is untouched, and a second run changes nothing."""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from infra.keyed_hash import address_hash
from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.delivery.rules import ERASED_REASON
from notifications.models import DeliveryAttempt, Notification, OperatorAction
from orders.models import Invoice, Order, OrderVersion
from privacy.erasure import EmailsInFlight, customer_erase
from privacy.export import customer_export
from privacy.models import Erasure, Export
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver
from tests.factories import OrderFactory
from tests.integration.privacy.proof_support import database_dump
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
ADDRESS, NAME, STREET = "ada@example.com", "Lovelace", "Unter den Linden"


_deliver = tea_house_deliver
_database_dump = database_dump


@pytest.fixture
def ada_s_order(mailsim, start_worker) -> Order:
    """Ada's Shopify order with its three emails sent, and another customer's order beside it."""
    tea_house_create()
    start_worker()
    _deliver("orders/create", shopify.ORDER, "evt-create")
    _deliver("fulfillments/create", shopify.FULFILLMENT, "evt-fulfilment")
    _deliver("refunds/create", shopify.REFUND, "evt-refund")
    OrderFactory.create(customer_email="grace@example.com")
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == 4,
        timeout=60,
        message="four emails sent",
    )
    return order


def test_an_erased_customer_is_nowhere_in_the_database_and_the_books_still_add_up(ada_s_order):
    dump = _database_dump()
    for personal in (ADDRESS, NAME, STREET):  # the search finds them while they are there
        assert personal in dump, personal
    total = OrderVersion.objects.get(order=ada_s_order).total_minor
    # when
    call_command("customer_erase", ADDRESS.upper(), "--yes", "--actor", "dpo")
    # then: not in any table, not in any column
    dump = _database_dump()
    for personal in (ADDRESS, NAME, STREET):
        assert personal.lower() not in dump.lower(), personal
    assert "grace@example.com" in dump  # another customer's stay
    # and the books and the history stay
    order = Order.objects.get(pk=ada_s_order.pk)
    assert (order.customer_email, order.customer_name, order.erased_at is not None) == ("", "", True)
    assert (order.amount, order.currency, order.status) == (
        ada_s_order.amount,
        ada_s_order.currency,
        ada_s_order.status,
    )
    assert OrderVersion.objects.get(order=order).total_minor == total
    assert sorted(Notification.objects.filter(order=order).values_list("status", flat=True)) == ["sent"] * 3
    assert DeliveryAttempt.objects.filter(notification__order=order, outcome="accepted").count() == 3
    [erasure] = Erasure.objects.all()
    assert (erasure.actor_name, erasure.via) == ("dpo", "command")
    assert erasure.changed["orders"] == 1
    assert erasure.changed["emails"] == 3
    assert erasure.changed["platform_deliveries"] == 3
    # her invoice is kept as issued, a legal record (left out of the dump above), and the
    # erasure's record says so
    assert erasure.changed["invoices_kept"] == 2  # the invoice and the refund's credit note
    assert Invoice.objects.get(order=order, kind="invoice").data["buyer"]["email"] == ADDRESS


def test_an_erasure_run_twice_changes_nothing_the_second_time(ada_s_order):
    call_command("customer_erase", ADDRESS, "--yes")
    call_command("customer_erase", ADDRESS, "--yes")
    first, second = Erasure.objects.order_by("erased_at")
    assert any(first.changed.values())
    assert not any(second.changed.values()), second.changed
    assert first.address_hash == second.address_hash != ""


def test_an_email_not_yet_sent_is_not_sent_and_says_why_also_after_a_second_run(mailsim):
    order = OrderFactory.create(customer_email=ADDRESS)  # its confirmation pending: no worker runs
    call_command("customer_erase", ADDRESS, "--yes")
    call_command("customer_erase", ADDRESS, "--yes")
    confirmation = Notification.objects.get(order=order)
    assert (confirmation.status, confirmation.last_error) == ("skipped", ERASED_REASON)
    first, second = Erasure.objects.order_by("erased_at")
    assert (first.changed["emails_not_sent"], second.changed["emails"]) == (1, 0)
    # and the event's handler, run now, sends nothing: the order is erased
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    event_dispatch(raw_envelope=envelope, delivery=Delivery(worker="test pid 1", retries=0, max_retries=8))
    assert Notification.objects.get(order=order).status == "skipped"
    assert mailsim.messages() == []


def test_an_email_being_sent_makes_the_erasure_wait_and_change_nothing():
    order = OrderFactory.create(customer_email=ADDRESS)
    Notification.objects.filter(order=order).update(
        status="sending", lease_owner="worker-1", lease_expires_at=timezone.now() + timedelta(seconds=60)
    )
    # when
    with pytest.raises(EmailsInFlight, match="being sent right now"):
        customer_erase(address=ADDRESS, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    with pytest.raises(CommandError, match="Nothing changed: 1 email"):
        call_command("customer_erase", ADDRESS, "--yes", "--wait", "0")
    # then
    assert Order.objects.get(pk=order.pk).customer_email == ADDRESS
    assert not Erasure.objects.exists()


def test_what_is_not_an_address_is_refused_at_the_command_line():
    with pytest.raises(CommandError, match="Refused, nothing changed: 'ada' is not an email address"):
        call_command("customer_erase", "ada", "--yes")


def test_the_export_holds_everything_about_the_customer_in_words_and_after_the_erasure_why_not(
    ada_s_order, tmp_path
):
    path = tmp_path / "ada.json"
    call_command("customer_export", ADDRESS.upper(), "--output", str(path))
    document = json.loads(path.read_text())
    [order] = document["orders"]
    assert (order["email address"], order["name"]) == (ADDRESS, "Ada Lovelace")
    assert STREET in json.dumps(order["what was bought, as the shop sent it (each version)"])
    assert sorted(email["email"] for email in document["emails"]) == [
        "Order confirmation",
        "Refund",
        "Shipment",
    ]
    assert all(email["status"] == "sent" and email["subject"] for email in document["emails"])
    assert len(document["what the shops' platforms sent"]) == 3
    invoice, _ = order["invoices and credit notes"]  # her invoice, as issued, and its credit note
    assert invoice["kind"] == "Invoice"
    assert invoice["buyer"]["name"] == "Ada Lovelace"
    assert "grace@example.com" not in path.read_text()  # nobody else's
    [export] = Export.objects.all()  # the disclosure is recorded, without the address
    assert (export.via, export.orders, export.address_hash) == ("command", 1, address_hash(ADDRESS))
    with pytest.raises(CommandError, match="Nothing written"):  # never over an existing file
        call_command("customer_export", ADDRESS, "--output", str(path))
    # after the erasure: what stays, and why the rest is gone
    call_command("customer_erase", ADDRESS, "--yes")
    after = customer_export(ADDRESS)
    assert [o["email address"] for o in after["orders"]] == [""]
    assert after["orders"][0]["erased at the customer's request at"]
    assert [e["asked through"] for e in after["erasures of this address's data"]] == [
        "manage.py customer_erase"
    ]
    # only the invoice, a legal record the erasure keeps, still holds her street
    kept = after["orders"][0].pop("invoices and credit notes")
    assert STREET in json.dumps(kept)
    assert STREET not in json.dumps(after)


def test_people_s_words_naming_the_customer_otherwise_lose_the_name_and_the_street_only(ada_s_order):
    comment = "Ms Lovelace, Unter den Linden, called: Ada asked about the metadata of her order."
    ada_s_email = Notification.objects.filter(order=ada_s_order).first()
    OperatorAction.objects.create(
        actor_name="rita", action="reject", comment=comment, notification=ada_s_email
    )
    call_command("customer_erase", ADDRESS, "--yes")
    assert OperatorAction.objects.get(actor_name="rita").comment == (
        "Ms (erased), (erased), called: (erased) asked about the metadata of her order."
    )
