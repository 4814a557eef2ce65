"""An API token sees and changes only the orders it placed. Another token's order is "not
found" exactly as an id that does not exist: the same status, body, headers and database work,
so a token cannot even learn that the order exists. Orders placed without a token are no
token's."""

import io
import re
import uuid

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apiauth.models import ApiToken
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
    order = OrderFactory.create(**VALID_ORDER)  # as the product's own tools place one
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


def _token(*args: str) -> tuple[APIClient, str]:
    """A token made as an operator makes one (`create_api_token`); the client holding it."""
    out, err = io.StringIO(), io.StringIO()
    call_command("create_api_token", *args, stdout=out, stderr=err)
    holder = APIClient()
    holder.credentials(HTTP_AUTHORIZATION=f"Bearer {out.getvalue().strip()}")
    return holder, err.getvalue()


def _placed_by(holder: APIClient) -> str:
    response = holder.post("/api/orders/", VALID_ORDER, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_a_rotated_token_reaches_the_orders_its_predecessor_placed(other_client):
    # given an order placed under the shop's first token
    first, _ = _token("shop-2026-01")
    order_id = _placed_by(first)
    # when the shop rotates: a successor under a new name, then the old name revoked
    second, said = _token("shop-2026-12", "--successor-of", "shop-2026-01")
    call_command("revoke_api_token", "shop-2026-01", "--actor", "ops", stdout=io.StringIO())
    # then the new token reads and pays the order; the old one is out; another client still
    # gets the 404 of an unknown id
    assert "speaks for client" in said
    assert second.get(f"/api/orders/{order_id}/").status_code == 200
    assert second.post(f"/api/orders/{order_id}/pay/", {}, format="json").json()["status"] == "paid"
    assert first.get(f"/api/orders/{order_id}/").status_code == 401
    assert _request(other_client, "get", order_id).status_code == 404


def test_a_replaced_token_of_the_same_name_keeps_the_names_orders():
    first, _ = _token("dev")
    order_id = _placed_by(first)
    second, _ = _token("dev", "--replace")
    assert second.get(f"/api/orders/{order_id}/").status_code == 200
    assert first.get(f"/api/orders/{order_id}/").status_code == 401


def test_succeeding_a_name_that_does_not_exist_is_a_usage_error_and_makes_no_token():
    with pytest.raises(CommandError, match="No token is named 'shop-typo'"):
        _token("shop-2026-12", "--successor-of", "shop-typo")
    assert not ApiToken.objects.filter(name="shop-2026-12").exists()


def test_a_name_in_use_is_refused_without_saying_whose_client_the_token_speaks_for():
    # given a client's token
    first, _ = _token("partner")
    order_id = _placed_by(first)
    # when an operator makes another token of that name for what may be another client
    with pytest.raises(CommandError, match="Tokens named 'partner' exist already"):
        _token("partner")
    # then no token is made; a second token of the same client must say so
    assert ApiToken.objects.filter(name="partner").count() == 1
    second, _ = _token("partner", "--successor-of", "partner")
    assert second.get(f"/api/orders/{order_id}/").status_code == 200


def test_a_name_of_one_client_cannot_succeed_another_clients_name():
    _token("shop-a")
    _token("shop-b")
    with pytest.raises(CommandError, match="speak for another client"):
        _token("shop-b", "--successor-of", "shop-a")
    assert ApiToken.objects.filter(name="shop-b").count() == 1


def test_a_replace_that_cannot_make_its_token_leaves_the_old_one_working(monkeypatch):
    # given the development token in use
    first, _ = _token("dev")
    # when its replacement cannot be stored after the old one was revoked: the random value
    # drawn is the old token's own, which the unique hash refuses
    # APIClient keeps what credentials() set in _credentials, which its stubs omit
    raw = first._credentials["HTTP_AUTHORIZATION"].removeprefix("Bearer ")  # type: ignore[attr-defined]
    monkeypatch.setattr("apiauth.services.secrets.token_urlsafe", lambda n: raw.removeprefix("ont_"))
    with pytest.raises(IntegrityError):
        _token("dev", "--replace")
    # then the revocation went with it: the old token still places orders
    assert not ApiToken.objects.filter(revoked_at__isnull=False).exists()
    _placed_by(first)
