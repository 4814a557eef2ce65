"""PATCH /api/orders/<id>/: a shop's order changed after it was placed is a new version with its
change (OrderEdit) and its "order changed" email, in one transaction; a change that changes
nothing stores nothing; what does not fit is refused with the reason and stores nothing."""

import copy
import uuid
from typing import Any

import pytest

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, OrderEdit, OrderVersion
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

# Three teas instead of two, the mug gone, a cup added: 3 x 12.50 + 1 x 6.90 + 4.90 - 5.00 = 44.30
EDITED: dict[str, Any] = {
    "lines": [
        {
            "sku": "TEA-GREEN",
            "name": "Green tea",
            "quantity": 3,
            "unit_price": 1250,
            "total": 3750,
            "tax_rate": "0.07",
        },
        {"sku": "CUP-1", "name": "Cup", "quantity": 1, "unit_price": 690, "total": 690, "tax_rate": "0.19"},
    ],
    "total": 4430,
}


@pytest.fixture
def shop_order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _edit(client, order: Order, body: dict):
    return client.patch(f"/api/orders/{order.id}/", body, format="json")


def _nothing_changed(order: Order) -> bool:
    fresh = Order.objects.get(pk=order.pk)
    return (
        not OrderEdit.objects.exists()
        and OrderVersion.objects.filter(order=order).count() == 1
        and not OutboxEvent.objects.filter(event_type="order.edited").exists()
        and not Notification.objects.filter(kind="order_edit").exists()
        and (fresh.version, fresh.content_version, str(fresh.amount)) == (1, 1, "34.80")
    )


def test_an_edit_is_a_new_version_with_its_change_its_event_and_its_pending_email(client, shop_order):
    # when
    response = _edit(client, shop_order, EDITED)
    # then: the order at its new version, the version before kept as it was
    assert response.status_code == 200, response.content
    order = Order.objects.get(pk=shop_order.pk)
    assert (order.version, order.content_version, str(order.amount)) == (2, 2, "44.30")
    first, second = OrderVersion.objects.filter(order=order).order_by("number")
    assert first.content["total"] == 3480
    assert (second.content["total"], second.total_minor) == (4430, 4430)
    assert second.content["number"] == "1001"
    assert second.content["customer_email"] == "ada@example.com"
    # and what changed, line by line
    [change] = OrderEdit.objects.filter(order=order)
    assert (change.from_version, change.to_version, change.total_before_minor, change.total_after_minor) == (
        1,
        2,
        3480,
        4430,
    )
    by_sku = {line["sku"]: (line["before"], line["after"]) for line in change.lines}
    assert by_sku == {"TEA-GREEN": (2, 3), "CUP-1": (0, 1), "MUG-1": (1, 0)}
    [event] = OutboxEvent.objects.filter(event_type="order.edited")
    assert (event.aggregate_type, event.aggregate_id) == ("order_edit", str(change.id))
    email = Notification.objects.get(kind="order_edit")
    assert (email.order_id, email.subject_id, email.status, email.content_version) == (
        order.id,
        change.id,
        "pending",
        2,
    )
    # and the API shows the order as it is now
    body = response.json()
    assert (body["version"], body["amount"], body["content"]["total"]) == (2, "44.30", 4430)
    assert ("order_edit", str(change.id)) in {(n["kind"], n["subject_id"]) for n in body["notifications"]}


def test_the_same_edit_again_changes_nothing_and_sends_nothing(client, shop_order):
    # given
    assert _edit(client, shop_order, EDITED).status_code == 200
    # when
    again = _edit(client, shop_order, EDITED)
    # then
    assert again.status_code == 200
    assert again.headers["Order-Unchanged"] == "true"
    assert OrderEdit.objects.count() == 1
    assert Notification.objects.filter(kind="order_edit").count() == 1
    assert Order.objects.get(pk=shop_order.pk).version == 2


def test_an_edit_that_leaves_the_order_as_it_is_stores_nothing(client, shop_order):
    # when: the lines and total it has
    response = _edit(client, shop_order, {"lines": SHOP_ORDER["lines"], "total": SHOP_ORDER["total"]})
    # then
    assert response.status_code == 200
    assert response.headers["Order-Unchanged"] == "true"
    assert _nothing_changed(shop_order)


def test_each_edit_is_its_own_email_with_its_own_key(client, shop_order):
    # when: two edits, one after the other
    assert _edit(client, shop_order, EDITED).status_code == 200
    back = {"lines": SHOP_ORDER["lines"], "total": SHOP_ORDER["total"]}
    assert _edit(client, shop_order, back).status_code == 200
    # then
    changes = list(OrderEdit.objects.filter(order=shop_order).order_by("to_version"))
    assert [(c.from_version, c.to_version) for c in changes] == [(1, 2), (2, 3)]
    keys = set(Notification.objects.filter(order=shop_order).values_list("idempotency_key", flat=True))
    assert len(keys) == 3  # the confirmation and two changes


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lines": EDITED["lines"], "total": 4431}, "total"),
        (
            {"lines": [EDITED["lines"][0] | {"total": 3749}], "total": 3649},
            "lines[0].total",
        ),
        ({"lines": EDITED["lines"]}, "total"),  # the total follows the lines: it must be sent
        ({"total": 4430}, "lines"),
        ({"lines": [], "total": 490}, "lines"),
        (EDITED | {"number": "1002"}, "number"),  # what names the order does not change
        (EDITED | {"currency": "USD"}, "currency"),
        (EDITED | {"customer_email": "eve@example.com"}, "customer_email"),
        (EDITED | {"locale": "ru"}, "locale"),
        (EDITED | {"discounts": [{"amount": 99999}]}, "total"),
    ],
)
def test_an_edit_that_does_not_fit_is_a_400_naming_the_field_and_stores_nothing(
    client, shop_order, body, field
):
    # when
    response = _edit(client, shop_order, copy.deepcopy(body))
    # then
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert _nothing_changed(shop_order)


def test_a_cancelled_order_changes_no_more(client, shop_order):
    # given
    assert client.post(f"/api/orders/{shop_order.id}/cancel/", {}, format="json").status_code == 200
    # when
    response = _edit(client, shop_order, EDITED)
    # then
    assert response.status_code == 409
    assert response.json()["error"] == "order_cancelled"
    assert not OrderEdit.objects.exists()


def test_an_order_of_the_short_body_has_no_lines_to_change(client):
    # given
    placed = client.post(
        "/api/orders/",
        {"customer_email": "a@example.com", "amount": "10.00", "currency": "EUR"},
        format="json",
    )
    assert placed.status_code == 201, placed.content
    order = Order.objects.get(id=placed.json()["id"])
    # when
    response = _edit(client, order, EDITED)
    # then
    assert response.status_code == 409
    assert response.json()["error"] == "order_has_no_lines"


def test_an_order_shipped_in_full_changes_no_more_and_no_line_falls_below_what_shipped(client, shop_order):
    # given: the teas shipped
    shipped = client.post(
        f"/api/orders/{shop_order.id}/shipments/",
        {"shipment_id": "P1", "carrier": "DHL", "lines": [{"sku": "TEA-GREEN", "quantity": 2}]},
        format="json",
    )
    assert shipped.status_code == 201
    # when: one tea fewer
    fewer = [EDITED["lines"][0] | {"quantity": 1, "total": 1250}, SHOP_ORDER["lines"][1]]
    below = _edit(client, shop_order, {"lines": fewer, "total": 1250 + 990 + 490 - 500})
    # then
    assert below.status_code == 409
    assert below.json()["error"] == "edit_below_shipped"
    assert "TEA-GREEN" in below.json()["message"]
    # and once the mug has shipped too, nothing changes any more
    rest = client.post(
        f"/api/orders/{shop_order.id}/shipments/", {"shipment_id": "P2", "carrier": "DHL"}, format="json"
    )
    assert rest.status_code == 201
    after = _edit(client, shop_order, EDITED)
    assert after.status_code == 409
    assert after.json()["error"] == "order_shipped"
    assert not OrderEdit.objects.exists()


def test_the_total_cannot_fall_below_what_was_refunded(client, shop_order):
    # given: paid, 30.00 refunded
    assert client.post(f"/api/orders/{shop_order.id}/pay/", format="json").status_code == 200
    refunded = client.post(
        f"/api/orders/{shop_order.id}/refunds/", {"refund_id": "R1", "amount": 3000}, format="json"
    )
    assert refunded.status_code == 201
    # when: an edit to 23.40
    small = {
        "lines": [SHOP_ORDER["lines"][0]],
        "total": 2500 + 490 - 500 - 100,
        "discounts": [{"amount": 600}],
    }
    response = _edit(client, shop_order, small)
    # then
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "edit_below_refunded"


def test_an_edit_of_a_version_that_moved_on_is_refused(client, shop_order):
    # given: the order paid since the client read version 1
    assert client.post(f"/api/orders/{shop_order.id}/pay/", format="json").status_code == 200
    # when
    response = _edit(client, shop_order, EDITED | {"version": 1})
    # then
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"
    assert not OrderEdit.objects.exists()


def test_another_clients_order_is_not_found_exactly_as_a_missing_one(client, shop_order):
    # given
    _, other = api_token_create(name="another shop")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {other}")
    missing_id = uuid.uuid4()
    # when
    theirs = _edit(client, shop_order, EDITED)
    missing = _edit(client, Order(id=missing_id), EDITED)
    # then
    assert (theirs.status_code, missing.status_code) == (404, 404)
    assert theirs.json() == {"error": "not_found", "message": f"No order has the id {shop_order.id}."}
    assert missing.json() == {"error": "not_found", "message": f"No order has the id {missing_id}."}
    assert _nothing_changed(shop_order)


def test_without_a_token_nothing_changes(client, shop_order):
    client.credentials()
    assert _edit(client, shop_order, EDITED).status_code == 401
    assert _nothing_changed(shop_order)
