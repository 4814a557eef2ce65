"""What a customer's erasure and export reach: the rows of the customer's own orders, and
elsewhere the rows that quote their address; never a row because it holds a word that is also
a part of their name. A customer named "Eur Paid" shares words with every Shopify order ("EUR",
"paid"); their export and erasure must leave everybody else's deliveries and people's words
alone."""

import pytest
from django.utils import timezone
from django_celery_results.models import TaskResult

from infra.keyed_hash import address_hash
from intake.models import PlatformDelivery
from intake.privacy_requests import platform_erasure_requests_apply
from messaging.models import DeadLetterRecord
from notifications.models import OperatorAction, Suppression
from notifications.tracking.suppression import suppression_active
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
