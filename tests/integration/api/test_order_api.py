"""The order API: auth, validation, the order and its outbox row, client idempotency."""

import uuid

import pytest
from django.db import transaction
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from messaging.models import OutboxEvent
from messaging.outbox import event_record
from notifications.models import Notification
from orders.events import ORDER_CREATED
from orders.models import Order

pytestmark = pytest.mark.django_db

VALID_ORDER = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}


def test_post_creates_the_order_its_outbox_event_and_a_pending_notification(client):
    # when
    response = client.post("/api/orders/", VALID_ORDER, format="json")
    # then
    assert response.status_code == 201, response.content
    body = response.json()
    order = Order.objects.get(id=body["id"])
    assert order.customer_email == "ada@example.com"
    assert str(order.amount) == "49.90"
    assert [(n["kind"], n["status"], n["attempts"]) for n in body["notifications"]] == [
        ("order_confirmation", "pending", 0)
    ]
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    assert event.event_type == "order.created"
    assert event.payload == {
        "event_id": str(event.id),
        "event_type": "order.created",
        "schema_version": 1,
        "order_id": str(order.id),
        "occurred_at": event.payload["occurred_at"],
    }
    assert "ada@example.com" not in str(event.payload)  # no personal data on the wire


def test_get_shows_the_order_and_each_notification_with_status_attempts_and_age(client):
    order_id = client.post("/api/orders/", VALID_ORDER, format="json").json()["id"]
    # when
    response = client.get(f"/api/orders/{order_id}/")
    # then
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == order_id
    assert body["status"] == "created"
    [notification] = body["notifications"]
    assert notification["status"] == "pending"
    assert notification["status_text"] == "pending"
    assert notification["attempts"] == 0
    assert notification["status_changed_at"]
    assert notification["age_seconds"] >= 0
    assert notification["provider"] == ""  # no provider has it yet


def test_get_says_which_provider_took_each_email(client):
    order_id = client.post("/api/orders/", VALID_ORDER, format="json").json()["id"]
    Notification.objects.filter(order_id=order_id).update(status="sent", provider="brevo")
    [notification] = client.get(f"/api/orders/{order_id}/").json()["notifications"]
    assert (notification["status"], notification["provider"]) == ("sent", "brevo")


def test_unknown_order_is_a_404_with_a_json_message(client):
    response = client.get(f"/api/orders/{uuid.uuid4()}/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**VALID_ORDER, "customer_email": "not-an-address"}, "customer_email"),
        ({**VALID_ORDER, "amount": "-3"}, "amount"),
        ({**VALID_ORDER, "amount": "0"}, "amount"),
        ({**VALID_ORDER, "amount": "12.345"}, "amount"),
        ({**VALID_ORDER, "amount": "abc"}, "amount"),
        ({**VALID_ORDER, "currency": "euro"}, "currency"),
        ({"amount": "1.00", "currency": "EUR"}, "customer_email"),
        ({**VALID_ORDER, "discount": "100%"}, "discount"),
    ],
)
def test_invalid_input_is_a_400_with_the_field_errors_and_creates_nothing(client, body, field):
    response = client.post("/api/orders/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert field in response.json()["fields"]
    assert Order.objects.count() == 0
    assert OutboxEvent.objects.count() == 0


def test_a_body_that_is_not_json_is_a_400(client):
    response = client.generic("POST", "/api/orders/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in response.json()["message"]


def test_requests_without_a_valid_token_are_refused():
    anonymous = APIClient()
    assert anonymous.post("/api/orders/", VALID_ORDER, format="json").status_code == 401
    anonymous.credentials(HTTP_AUTHORIZATION="Bearer ont_wrong")
    response = anonymous.post("/api/orders/", VALID_ORDER, format="json")
    assert response.status_code == 401
    assert "unknown or has been revoked" in response.json()["message"]
    assert Order.objects.count() == 0


def test_retried_post_with_the_same_idempotency_key_returns_the_same_order(client):
    first = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="checkout-42")
    # when
    second = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="checkout-42")
    # then
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == second.json()["id"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert Order.objects.count() == 1
    assert OutboxEvent.objects.count() == 1
    assert Notification.objects.count() == 1


def test_the_same_idempotency_key_with_a_different_body_is_refused(client):
    client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="checkout-43")
    response = client.post(
        "/api/orders/", {**VALID_ORDER, "amount": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="checkout-43"
    )
    assert response.status_code == 422
    assert response.json()["error"] == "idempotency_key_reused"
    assert Order.objects.count() == 1


def test_different_idempotency_keys_make_different_orders(client):
    a = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="a").json()["id"]
    b = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="b").json()["id"]
    assert a != b


def test_an_idempotency_key_with_control_characters_is_a_400(client):
    response = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY="a b")
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["fields"]


def test_the_openapi_schema_describes_the_order_endpoints(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "/api/orders/" in response.content.decode()


def test_the_schema_is_built_once_per_process_whatever_the_query(client, monkeypatch):
    # given: the schema's generation counted (about a second of CPU each: anyone who reaches
    # the public schema could otherwise make the web generate it again and again)
    built: list[int] = []
    generate = SchemaGenerator.get_schema

    def counted(*args, **kwargs):
        built.append(1)
        return generate(*args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    first = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    # when: asked again, with queries that would be new keys for a page cache, and as YAML
    again = [
        client.get(f"/api/schema/?{query}", HTTP_ACCEPT="application/json")
        for query in ("", "lang=de", "version=9", "x=1")
    ]
    yaml = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi")
    # then
    assert {response.content for response in again} == {first.content}
    assert yaml.status_code == 200
    assert yaml.content.decode().startswith("openapi:")
    assert len(built) <= 1


@pytest.mark.django_db(transaction=True)
def test_an_order_transaction_that_rolls_back_leaves_no_outbox_row_and_runs_no_publish(
    django_capture_on_commit_callbacks,
):
    # given an order transaction that fails after its event was written
    def place_order_then_fail():
        with transaction.atomic():
            order = Order.objects.create(customer_email="x@example.com", amount="5.00", currency="EUR")
            event_record(event_type=ORDER_CREATED, aggregate_id=order.id)
            raise RuntimeError("the payment check failed")

    # when
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(RuntimeError, match="payment"):
        place_order_then_fail()
    # then
    assert Order.objects.count() == 0
    assert OutboxEvent.objects.count() == 0
    assert Notification.objects.count() == 0
    assert callbacks == []


def test_committing_an_order_registers_exactly_one_publish_hook(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        client.post("/api/orders/", VALID_ORDER, format="json")
    assert len(callbacks) == 1


def test_an_order_carries_the_customers_language_and_get_shows_it(client):
    response = client.post("/api/orders/", {**VALID_ORDER, "locale": "ru"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["locale"] == "ru"
    assert client.get(f"/api/orders/{response.json()['id']}/").json()["locale"] == "ru"
    assert Order.objects.get(id=response.json()["id"]).locale == "ru"


def test_an_order_without_a_language_gets_the_sites(client, settings):
    settings.LANGUAGE_CODE = "ru"
    response = client.post("/api/orders/", VALID_ORDER, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["locale"] == "ru"


@pytest.mark.parametrize(
    ("locale", "reason"),
    [
        ("de", "Unknown language 'de': use one of en, ru."),
        ("RU", "Unknown language 'RU': use one of en, ru."),
        ("en-us", "Unknown language 'en-us': use one of en, ru."),
        ("", "This field may not be blank."),
    ],
)
def test_a_language_the_shop_does_not_offer_is_refused_with_the_choices(client, locale, reason):
    response = client.post("/api/orders/", {**VALID_ORDER, "locale": locale}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"] == {"locale": [reason]}
    assert not Order.objects.exists()


def test_a_retry_with_the_same_key_and_another_language_is_a_different_request(client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "order-lang-1"}
    first = client.post("/api/orders/", {**VALID_ORDER, "locale": "ru"}, format="json", **headers)
    again = client.post("/api/orders/", {**VALID_ORDER, "locale": "ru"}, format="json", **headers)
    other = client.post("/api/orders/", {**VALID_ORDER, "locale": "en"}, format="json", **headers)
    assert (first.status_code, again.status_code, other.status_code) == (201, 201, 422)
    assert again.json()["id"] == first.json()["id"]
