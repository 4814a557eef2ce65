"""The shop's systems erase and export a customer through the API: the address in the body of
a POST, the erasure recorded under the token's name; 400 for what is not an address, 409 with
Retry-After while one of the customer's emails is being sent, 401 without a token."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from notifications.models import Notification
from orders.models import Order
from privacy.models import Erasure, Export
from tests.factories import OrderFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
ADDRESS = "ada@example.com"


@pytest.fixture
def client(api_token) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


def test_the_export_then_the_erasure_of_a_customer(client):
    order = OrderFactory.create(customer_email=ADDRESS)
    OrderFactory.create(customer_email="grace@example.com")
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


def test_an_email_being_sent_is_a_409_with_retry_after_and_nothing_changes(client):
    order = OrderFactory.create(customer_email=ADDRESS)
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
