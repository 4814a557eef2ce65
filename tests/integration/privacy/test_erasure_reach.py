"""What a customer's erasure and export reach: the rows of the customer's own orders, and
elsewhere the rows that quote their address; never a row because it holds a word that is also
a part of their name. A customer named "Eur Paid" shares words with every Shopify order ("EUR",
"paid"); their export and erasure must leave everybody else's deliveries and people's words
alone."""

import hashlib

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from django_celery_results.models import TaskResult

from infra.keyed_hash import address_hash
from intake.models import PlatformDelivery
from intake.privacy_requests import platform_erasure_requests_apply
from messaging.models import DeadLetterRecord
from notifications.models import AddressCorrection, OperatorAction, ReconcileMismatch, Suppression
from notifications.tracking.suppression import suppression_active
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.export import customer_export
from privacy.models import Erasure
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver

pytestmark = pytest.mark.django_db
ADA, EUR = "ada@example.com", "eur@example.com"
EUR_ORDER_ID = 7001


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


def _eur_paid_s_order(first: str = "Eur", last: str | None = "Paid") -> dict:
    """Another Shopify order of the shop, by a customer named "Eur Paid" (or as given)."""
    name = " ".join(part for part in (first, last) if part)
    place = {"first_name": first, "last_name": last, "name": name, "address1": "Paid Lane 3"}
    return shopify.order(
        id=EUR_ORDER_ID,
        name="#1002",
        email=EUR,
        contact_email=EUR,
        customer={"id": 8, "email": EUR, "first_name": first, "last_name": last},
        shipping_address=shopify.ORDER["shipping_address"] | place,
        billing_address=shopify.ORDER["billing_address"] | place,
    )


def _a_parcel_waiting_for_its_order() -> None:
    """A parcel of a third customer's order that has not arrived yet: its body says "EUR"."""
    parcel = shopify.FULFILLMENT | {"id": 4451234999, "order_id": 9009}
    assert tea_house_deliver("fulfillments/create", parcel, "evt-waiting") == "waiting"


def _erase(address: str) -> Erasure:
    return customer_erase(address=address, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")


def test_an_export_holds_no_delivery_of_another_customer_for_the_name(shop):
    tea_house_deliver("orders/create", shopify.ORDER, "evt-ada")  # Ada's: "EUR", "paid"
    tea_house_deliver("orders/create", _eur_paid_s_order("EUR", None), "evt-eur")  # a customer named "EUR"
    _a_parcel_waiting_for_its_order()
    request = shopify.CUSTOMER_DATA_REQUEST | {"customer": {"id": 8, "email": EUR}, "orders_requested": []}
    tea_house_deliver("customers/data_request", request, "evt-data-request")
    # when
    document = customer_export(EUR)
    # then: the customer's own order's delivery, and the request that quotes the address
    sent = document["what the shops' platforms sent"]
    assert sorted(delivery["what"] for delivery in sent) == ["customers/data_request", "orders/create"]
    assert [d["as sent"]["id"] for d in sent if d["what"] == "orders/create"] == [EUR_ORDER_ID]
    assert "ada@example.com" not in str(document)


def test_erasing_a_namesake_leaves_other_people_s_deliveries_and_words_alone(shop):
    tea_house_deliver("orders/create", shopify.ORDER, "evt-ada")
    tea_house_deliver("orders/create", _eur_paid_s_order(), "evt-eur")
    _a_parcel_waiting_for_its_order()
    others = dict(PlatformDelivery.objects.exclude(order__customer_email=EUR).values_list("pk", "body"))
    now = timezone.now()
    comment = OperatorAction.objects.create(actor_name="rita", action="reject", comment="Paid order resent")
    dead = DeadLetterRecord.objects.create(
        queue="orders.confirmations",
        error_class="permanent",
        reason="Paid twice",
        worker="w",
        dead_lettered_at=now,
    )
    task = TaskResult.objects.create(task_id="t-1", status="FAILURE", result='"EUR amount refused"')
    quoting = OperatorAction.objects.create(actor_name="rita", action="reject", comment=f"{EUR} phoned")
    # when
    erasure = _erase(EUR)
    # then: the customer's own order's delivery is blanked
    assert PlatformDelivery.objects.get(order__platform_order_id=str(EUR_ORDER_ID)).body == ""
    # and nobody else's: not Ada's order, not the parcel waiting for a third customer's order
    assert dict(PlatformDelivery.objects.filter(pk__in=others).values_list("pk", "body")) == others
    assert PlatformDelivery.objects.get(topic="fulfillments/create").outcome == "waiting"
    # and people's words keep the words that merely are parts of the name
    comment.refresh_from_db()
    dead.refresh_from_db()
    task.refresh_from_db()
    assert (comment.comment, dead.reason, task.result) == (
        "Paid order resent",
        "Paid twice",
        '"EUR amount refused"',
    )
    # while the address, where it is quoted, is replaced
    quoting.refresh_from_db()
    assert quoting.comment == "(erased) phoned"
    assert erasure.changed["platform_deliveries"] == 1


def test_a_platform_s_erasure_keeps_the_suppression_by_its_hash_alone(shop):
    tea_house_deliver("orders/create", shopify.ORDER, "evt-ada")
    suppression = Suppression.objects.create(
        address=ADA, address_hash=address_hash(ADA), reason="complained", detail=f"{ADA} marked it as spam"
    )
    tea_house_deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact")
    # when the hourly job carries out Shopify's request
    assert platform_erasure_requests_apply(now=timezone.now(), batch_size=10, max_batches=1) == 1
    # then the suppression no longer holds the address, and still suppresses it
    suppression.refresh_from_db()
    assert (suppression.address, suppression.detail, suppression.address_hash) == ("", "", address_hash(ADA))
    assert suppression_active(ADA.upper()) == suppression


GRACE = "grace@example.com"
COFFEE_SECRET = hashlib.sha256(b"the tests' second Shopify app").hexdigest()[:38]


def _coffee_deliver(coffee: Shop, topic: str, payload: dict, event_id: str) -> str:
    """A delivery of the second shop, "Coffee Corner", signed with its own secret."""
    body = shopify.body_of(payload)
    headers: dict = shopify.signed_headers(
        body, topic=topic, event_id=event_id, secret=COFFEE_SECRET, domain=coffee.domain
    )
    response = Client().post("/shops/coffee/webhook", body, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    return str(response.json()["detail"])


def _words_quoting(address: str, order: Order) -> list:
    """Rows quoting the address that belong to no shop (what people and tasks wrote), and those
    of another shop's order (a reviewer's correction of its address, a mismatch about it)."""
    staff = User.objects.create(username="rita")
    now = timezone.now()
    comment = OperatorAction.objects.create(
        action="rerun_delivery", actor_name="coffee staff", comment=f"asked {address} for her address"
    )
    return [
        comment,
        DeadLetterRecord.objects.create(
            queue="orders.confirmations",
            error_class="permanent",
            reason=f"{address} refused",
            worker="w",
            dead_lettered_at=now,
        ),
        TaskResult.objects.create(task_id="t-grace", status="FAILURE", result=f'"{address} refused"'),
        LogEntry.objects.create(
            user=staff, action_flag=CHANGE, object_repr="a shop", change_message=f"noted {address}"
        ),
        AddressCorrection.objects.create(
            order=order,
            previous_address="grace@exmaple.com",
            new_address=address,
            action=comment,
            corrected_at=now,
        ),
        ReconcileMismatch.objects.create(
            problem="stuck",
            subject=f"{order.pk}:order_confirmation",
            day=now.date(),
            order=order,
            detail=f"waiting since {address} asked",
            due_at=now,
            first_found_at=now,
            last_found_at=now,
        ),
    ]


def _texts(rows: list) -> list[str]:
    """Each row's text, as stored now (in the order _words_quoting made them)."""
    for row in rows:
        row.refresh_from_db()
    comment, dead_letter, task, history, correction, mismatch = rows
    return [
        comment.comment,
        dead_letter.reason,
        task.result,
        history.change_message,
        correction.new_address,
        mismatch.detail,
    ]


def test_a_shop_s_erasure_request_reaches_nothing_of_another_shop_or_of_nobody_s(shop):
    coffee = Shop.objects.create(
        slug="coffee",
        name="Coffee Corner",
        platform="shopify",
        domain="coffee-corner.myshopify.com",
        webhook_secret=COFFEE_SECRET,
    )
    # given: Grace, a customer of the other shop only: an order it took, one it could not use
    # (no shipping address yet: kept for a person to fix and run again)
    customer = {"id": 1, "email": GRACE, "first_name": "Grace", "last_name": "Hopper"}
    taken = shopify.order(id=776, name="#C-0", email=GRACE, contact_email=GRACE, customer=customer)
    waiting = shopify.order(
        id=777, name="#C-1", email=GRACE, contact_email=GRACE, customer=customer, shipping_address=None
    )
    assert _coffee_deliver(coffee, "orders/create", taken, "coffee-evt-0") == "used"
    assert _coffee_deliver(coffee, "orders/create", waiting, "coffee-evt-1") == "could_not_use"
    coffee_s = dict(PlatformDelivery.objects.filter(shop=coffee).values_list("pk", "body"))
    words = _words_quoting(GRACE, Order.objects.get(shop=coffee))
    written = _texts(words)
    # when: this shop (which signs its own deliveries, so may name anyone) asks to erase her
    redact = shopify.CUSTOMER_REDACT | {"customer": {"id": 5, "email": GRACE}, "orders_to_redact": []}
    assert tea_house_deliver("customers/redact", redact, "tea-evt-redact") == "for_a_person"
    platform_erasure_requests_apply(now=timezone.now(), batch_size=10, max_batches=1)
    # then: the other shop's deliveries and order are as they were (the one it could not use
    # can still be run again), and so is what people and tasks wrote
    assert dict(PlatformDelivery.objects.filter(shop=coffee).values_list("pk", "body")) == coffee_s
    assert Order.objects.get(shop=coffee).customer_email == GRACE
    assert _texts(words) == written
    # and the record says that this shop's request itself was all it changed
    [erasure] = Erasure.objects.all()
    assert erasure.changed["platform_deliveries"] == 1
    assert GRACE not in PlatformDelivery.objects.get(shop=shop, topic="customers/redact").body
    assert not any(
        erasure.changed[kind]
        for kind in (
            "operator_actions",
            "dead_letters",
            "task_results",
            "admin_history",
            "address_corrections",
            "reconcile_mismatches",
        )
    )
    # while the operator's erasure still reaches all of it
    _erase(GRACE)
    assert [GRACE in text for text in _texts(words)] == [False] * len(words)
    assert GRACE not in "".join(PlatformDelivery.objects.filter(shop=coffee).values_list("body", flat=True))
