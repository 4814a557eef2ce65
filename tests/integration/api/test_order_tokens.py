"""An API token sees and changes only the orders it placed. Another token's order is "not
found" exactly as an id that does not exist: the same status, body, headers and database work,
so a token cannot even learn that the order exists. Orders placed without a token are no
token's."""

import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderNotFound, order_cancel, order_pay
from orders.models import Order
from tests.factories import OrderFactory

pytestmark = pytest.mark.django_db

VALID_ORDER = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}
UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
TIMESTAMP = re.compile(r"'\d{4}-\d\d-\d\dT?[ \d:.+]*'")
SAVEPOINT = re.compile(r'"s\d+_x\d+"')  # the durable transaction's, inside the test's
# Each way a token reaches one order by its id.
REQUESTS = {
    "get": ("get", "/api/orders/{}/"),
    "pay": ("post", "/api/orders/{}/pay/"),
    "cancel": ("post", "/api/orders/{}/cancel/"),
}


@pytest.fixture
def other_client(db) -> APIClient:
    """A second client, with a token of its own."""
    _, raw = api_token_create(name="another shop")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return other


def _request(client: APIClient, name: str, order_id: object):
    method, path = REQUESTS[name]
    return getattr(client, method)(path.format(order_id), {}, format="json")


def _as_stored(order: Order) -> tuple:
    order.refresh_from_db()
    notifications = sorted(order.notifications.values_list("kind", "status", "last_error"))
    return order.status, order.version, order.updated_at, notifications


@pytest.mark.parametrize("name", REQUESTS)
def test_another_tokens_order_is_a_404_and_stays_unchanged(order, other_client, name):
    # given Ada's order, placed by `client`'s token
    before = _as_stored(order)
    events_before = OutboxEvent.objects.count()
    # when another token reads, pays or cancels it
    response = _request(other_client, name, order.id)
    # then it is not found, and nothing changed or was written
    assert response.status_code == 404, response.content
    assert response.json() == {"error": "not_found", "message": f"No order has the id {order.id}."}
    assert _as_stored(order) == before
    assert OutboxEvent.objects.count() == events_before


@pytest.mark.parametrize("name", REQUESTS)
def test_another_tokens_order_answers_exactly_as_an_id_that_does_not_exist(order, other_client, name):
    missing = uuid.uuid4()
    _request(other_client, name, missing)  # warm: the token's last-used time is written once
    # when
    with CaptureQueriesContext(connection) as theirs:
        for_theirs = _request(other_client, name, order.id)
    with CaptureQueriesContext(connection) as nobodys:
        for_nobodys = _request(other_client, name, missing)
    # then the same status, headers and body (but for the id), and the same database work
    assert for_theirs.status_code == for_nobodys.status_code == 404
    assert dict(for_theirs.headers) == dict(for_nobodys.headers)
    assert for_theirs.content.replace(str(order.id).encode(), b"<id>") == for_nobodys.content.replace(
        str(missing).encode(), b"<id>"
    )
    assert _statements(theirs) == _statements(nobodys)


def _statements(captured: CaptureQueriesContext) -> list[str]:
    """The SQL run, with the ids, times and savepoint names that differ between two requests
    taken out."""
    return [
        SAVEPOINT.sub("<savepoint>", TIMESTAMP.sub("<time>", UUID.sub("<id>", query["sql"])))
        for query in captured.captured_queries
    ]


@pytest.mark.parametrize("name", REQUESTS)
def test_an_order_placed_without_a_token_is_no_tokens(client, name):
    order = OrderFactory(**VALID_ORDER)  # as the product's own tools place one
    assert order.api_token is None
    response = _request(client, name, order.id)
    assert response.status_code == 404, response.content
    order.refresh_from_db()
    assert (order.status, order.version) == ("created", 1)


def test_the_owner_still_reads_pays_and_cancels_its_order(client, order):
    assert client.get(f"/api/orders/{order.id}/").status_code == 200
    assert client.post(f"/api/orders/{order.id}/pay/", format="json").json()["status"] == "paid"
    assert client.post(f"/api/orders/{order.id}/cancel/", format="json").json()["status"] == "cancelled"


def test_the_services_themselves_refuse_another_tokens_order(order):
    # The filter is in the selector and the services, not only in the views.
    other, _ = api_token_create(name="another shop")
    assert order_get_with_notifications(order_id=order.id, api_token=other) is None
    assert order_get_with_notifications(order_id=order.id, api_token=None) is None
    for change in (order_pay, order_cancel):
        for api_token in (other, None):
            with pytest.raises(OrderNotFound, match=f"No order has the id {order.id}."):
                change(order_id=order.id, api_token=api_token)
    assert order_get_with_notifications(order_id=order.id, api_token=order.api_token) == order


def test_the_same_idempotency_key_under_another_token_is_another_order(client, other_client):
    key = {"HTTP_IDEMPOTENCY_KEY": "checkout-1"}
    mine = client.post("/api/orders/", VALID_ORDER, format="json", **key)
    theirs = other_client.post("/api/orders/", VALID_ORDER, format="json", **key)
    assert mine.status_code == theirs.status_code == 201
    assert mine.json()["id"] != theirs.json()["id"]
    assert "Idempotent-Replayed" not in theirs.headers
