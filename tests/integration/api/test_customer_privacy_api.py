"""The shop's systems erase and export a customer through the API: the address in the body of
a POST, the erasure recorded under the token's name; 400 for what is not an address, 409 with
Retry-After while one of the customer's emails is being sent, 401 without a token. A token
reaches the customers of the orders its client placed, and nothing else held about the address:
another client's customer answers exactly as an address nobody knows."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from infra.keyed_hash import address_hash
from notifications.models import DeliveryAttempt, Notification, Suppression
from orders.models import Order
from privacy.models import Erasure, Export
from tests.factories import DeliveryAttemptFactory, OrderFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
ADDRESS, NOBODY = "ada@example.com", "nobody@example.com"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)")


@pytest.fixture
def other_client(db) -> APIClient:
    """A second client, with a token of its own."""
    _, raw = api_token_create(name="another shop")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return other


def test_the_export_then_the_erasure_of_a_customer(client, client_token):
    order = OrderFactory.create(customer_email=ADDRESS, api_token=client_token)
    OrderFactory.create(customer_email="grace@example.com", api_token=client_token)
    # the export: everything about the address, nothing about anyone else
    exported = client.post("/api/customers/export/", {"email": ADDRESS.upper()}, format="json")
    assert exported.status_code == 200, exported.content
    assert [o["order"] for o in exported.json()["orders"]] == [str(order.id)]
    assert "grace@example.com" not in exported.content.decode()
    assert list(Export.objects.values_list("via", "actor_name")) == [("api", "API token tests")]
    # the erasure
    erased = client.post("/api/customers/erasure/", {"email": ADDRESS}, format="json")
    assert erased.status_code == 200, erased.content
    assert erased.json()["changed"]["orders"] == 1
    assert Order.objects.get(pk=order.pk).customer_email == ""
    [erasure] = Erasure.objects.all()
    assert (erasure.via, erasure.actor_name) == ("api", "API token tests")
    assert ADDRESS not in str(erasure.changed) + erasure.address_hash


def test_what_is_not_an_address_or_not_alone_is_a_400_with_the_reason(client):
    for body in ({"email": "ada"}, {}, {"email": ADDRESS, "name": "Ada"}):
        answer = client.post("/api/customers/erasure/", body, format="json")
        assert answer.status_code == 400, (body, answer.content)
        assert answer.json()["error"] == "invalid_request"
    assert not Erasure.objects.exists()


def test_an_email_being_sent_is_a_409_with_retry_after_and_nothing_changes(client, client_token):
    order = OrderFactory.create(customer_email=ADDRESS, api_token=client_token)
    Notification.objects.filter(order=order).update(
        status="sending", lease_owner="w", lease_expires_at=timezone.now() + timedelta(seconds=30)
    )
    answer = client.post("/api/customers/erasure/", {"email": ADDRESS}, format="json")
    assert answer.status_code == 409
    assert answer.json()["error"] == "emails_in_flight"
    assert 1 <= int(answer["Retry-After"]) <= 30
    assert Order.objects.get(pk=order.pk).customer_email == ADDRESS


def test_without_a_token_nothing_is_erased_or_exported():
    for path in ("/api/customers/erasure/", "/api/customers/export/"):
        assert APIClient().post(path, {"email": ADDRESS}, format="json").status_code == 401


def _ada_known_to_the_first_client(client, client_token) -> Order:
    """Ada's order placed by `client`, after an earlier one it had erased; an email of it sent
    to her; her address suppressed for the whole deployment."""
    OrderFactory.create(customer_email=ADDRESS, api_token=client_token)
    assert client.post("/api/customers/erasure/", {"email": ADDRESS}, format="json").status_code == 200
    order = OrderFactory.create(customer_email=ADDRESS, api_token=client_token)
    DeliveryAttemptFactory.create(
        notification=order.notifications.get(), outcome="accepted", recipient=ADDRESS
    )
    Suppression.objects.create(address=ADDRESS, address_hash=address_hash(ADDRESS), reason="complained")
    return order


def _as_an_unknown_address(answer, address: str) -> str:
    """The answer's body, with the address asked about and every time written alike."""
    text = json.dumps(answer.json(), sort_keys=True).replace(address, "<address>")
    return TIMESTAMP.sub("<time>", text)


def test_another_client_s_customer_is_exported_exactly_as_an_unknown_address(
    client, client_token, other_client
):
    _ada_known_to_the_first_client(client, client_token)
    # when the other client asks for her, and for an address nobody knows
    hers = other_client.post("/api/customers/export/", {"email": ADDRESS}, format="json")
    nobody_s = other_client.post("/api/customers/export/", {"email": NOBODY}, format="json")
    # then both answers are the same: no order, email, attempt, suppression or erasure of hers
    assert (hers.status_code, nobody_s.status_code) == (200, 200)
    assert _as_an_unknown_address(hers, ADDRESS) == _as_an_unknown_address(nobody_s, NOBODY)
    assert "complained" not in hers.content.decode()


def test_another_client_s_customer_is_erased_exactly_as_an_unknown_address_and_nothing_changes(
    client, client_token, other_client
):
    order = _ada_known_to_the_first_client(client, client_token)
    # when the other client erases her, and an address nobody knows
    hers = other_client.post("/api/customers/erasure/", {"email": ADDRESS}, format="json")
    nobody_s = other_client.post("/api/customers/erasure/", {"email": NOBODY}, format="json")
    # then both answers are the same but for the record's id and time: nothing changed
    assert (hers.status_code, nobody_s.status_code) == (200, 200)
    assert hers.json()["changed"] == nobody_s.json()["changed"]
    assert not any(hers.json()["changed"].values())
    assert sorted(hers.json()) == sorted(nobody_s.json()) == ["changed", "erased_at", "erasure"]
    # and the first client's order, its email's attempt and the suppression are as they were
    assert Order.objects.get(pk=order.pk).customer_email == ADDRESS
    assert DeliveryAttempt.objects.get(notification__order=order).recipient == ADDRESS
    suppression = Suppression.objects.get()
    assert (suppression.address, suppression.lifted_at) == (ADDRESS, None)
    # and the first client's export shows its own erasure only
    erasures = client.post("/api/customers/export/", {"email": ADDRESS}, format="json").json()
    assert len(erasures["erasures of this address's data"]) == 1


def test_a_client_s_erasure_reaches_the_orders_its_client_placed_only(client, client_token, other_client):
    mine = OrderFactory.create(customer_email=ADDRESS, api_token=client_token)
    other_client.post(
        "/api/orders/", {"customer_email": ADDRESS, "amount": "9.90", "currency": "EUR"}, format="json"
    )
    another_client_s = Order.objects.exclude(pk=mine.pk).get()
    placed_without_a_token = OrderFactory.create(customer_email=ADDRESS)
    # when
    erased = client.post("/api/customers/erasure/", {"email": ADDRESS}, format="json")
    # then
    assert erased.json()["changed"]["orders"] == 1
    assert Order.objects.get(pk=mine.pk).customer_email == ""
    assert Order.objects.get(pk=another_client_s.pk).customer_email == ADDRESS
    assert Order.objects.get(pk=placed_without_a_token.pk).customer_email == ADDRESS
