"""Two edits of one order arriving at the same moment on separate connections (as two web
processes take them): applied one after the other (intake/apply.py's advisory lock), never
ending on the older one, and the documents billing what the order holds, numbered unbroken."""

import threading

import pytest
from django.db import connection

from intake.receive import delivery_receive
from orders.models import Invoice, Order
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create
from tests.integration.intake.platform_edit_support import one_tea_less, with_mug

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _at_once(shop: Shop, bodies: list[str]) -> None:
    start = threading.Barrier(len(bodies))
    errors: list[BaseException] = []

    def receive(index: int, body: str) -> None:
        try:
            start.wait(timeout=10)
            key = f"evt-{index}"
            delivery_receive(shop=shop, event_key=key, webhook_id="", topic="orders/updated", body=body)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=receive, args=(i, body)) for i, body in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors


@pytest.mark.parametrize("newer_first", [True, False])
def test_two_edits_at_once_end_on_the_newer_with_documents_that_add_up(newer_first):
    # given
    shop = tea_house_create()
    delivery_receive(
        shop=shop,
        event_key="evt-create",
        webhook_id="",
        topic="orders/create",
        body=shopify.body_of(shopify.ORDER).decode(),
    )
    older = one_tea_less("2026-12-01T11:00:00+01:00")
    newer = with_mug(shopify.order(updated_at="2026-12-01T12:00:00+01:00"))
    pair = [newer, older] if newer_first else [older, newer]
    # when
    _at_once(shop, [shopify.body_of(payload).decode() for payload in pair])
    # then: the mug's version, whichever came first
    order = Order.objects.get()
    content = order.versions.latest("number").content
    assert sorted(line["sku"] for line in content["lines"]) == ["MUG-2", "POT-1", "TEA-GREEN"]
    assert str(order.amount) == "69.60"
    documents = Invoice.objects.filter(order=order).order_by("number")
    assert sum(document.total_minor for document in documents) == 6960
    assert [document.number for document in documents] == list(range(1, documents.count() + 1))
