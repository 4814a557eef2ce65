"""Hostile strings in every field of the order API: each is refused with a 400 that says why,
or stored exactly as sent, and then shown escaped in the admin. Never a 500."""

import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from notifications.models import Notification
from orders.models import Order
from tests.factories import OrderFactory

pytestmark = pytest.mark.django_db

VALID_ORDER = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}
SCRIPT = "<script>alert(1)</script>"
HOSTILE = {
    "very long": "a" * 20_000,
    "NUL": "\x00",
    "NUL inside": "ada\x00@example.com",
    "terminal escape": "\x07\x1b[31mred",
    "CR LF": "ada@example.com\r\nBcc: all@example.com",
    "RTL override": "\u202etxt.exe",
    "zero-width space": "ada\u200b@example.com",
    "astral emoji": "\U0001f600",
    "combining marks": "e\u0301\u0301\u0301",
    "lone surrogate": "\ud800",
    "SQL": "'; DROP TABLE orders_order; --",
    "HTML": SCRIPT,
}
# The same strings where EmailValidator lets characters through: a quoted local part and a
# domain label. What passes it either is refused by our own check or is stored verbatim.
EMAIL_SHAPES = {
    "bare": "{}",
    "quoted local part": '"{}"@example.com',
    "domain label": "ada@{}.example.com",
}


def _post_json(client, path: str, body: dict):
    # ensure_ascii: the lone surrogate travels as the JSON escape "\ud800", as a client sends it
    return client.generic("POST", path, json.dumps(body, ensure_ascii=True), content_type="application/json")


def _refused_with_a_reason_or_stored_verbatim(response, field: str, value: str) -> None:
    assert response.status_code in (201, 400), response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    if response.status_code == 400:
        assert body["error"] in ("invalid_request", "parse_error"), body
        reasons = body["fields"][field] if body["error"] == "invalid_request" else [body["message"]]
        assert all(isinstance(reason, str) and reason for reason in reasons)
    else:
        assert getattr(Order.objects.get(id=body["id"]), field) == value


@pytest.mark.parametrize("shape", EMAIL_SHAPES.values(), ids=EMAIL_SHAPES.keys())
@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_customer_email_is_refused_with_a_reason_or_stored_verbatim(client, hostile, shape):
    value = shape.format(hostile)
    response = _post_json(client, "/api/orders/", {**VALID_ORDER, "customer_email": value})
    _refused_with_a_reason_or_stored_verbatim(response, "customer_email", value)


@pytest.mark.parametrize("field", ["amount", "currency"])
@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_amount_or_currency_is_refused_with_a_reason(client, field, hostile):
    response = _post_json(client, "/api/orders/", {**VALID_ORDER, field: hostile})
    assert response.status_code == 400
    body = response.json()
    assert body["fields"][field] if body["error"] == "invalid_request" else "surrogate" in body["message"]
    assert Order.objects.count() == 0


@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_field_name_is_refused_with_a_reason(client, hostile):
    response = _post_json(client, "/api/orders/", {**VALID_ORDER, hostile: "x"})
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json()["message"]
    assert Order.objects.count() == 0


@pytest.mark.parametrize("hostile", [*HOSTILE.values(), 10**30, -(10**30), "9" * 5000, 1.5, True, None])
def test_a_hostile_version_on_pay_and_cancel_is_refused_with_a_reason(client, client_token, hostile):
    order = OrderFactory.create(**VALID_ORDER, api_token=client_token)
    for change in ("pay", "cancel"):
        response = _post_json(client, f"/api/orders/{order.id}/{change}/", {"version": hostile})
        assert response.status_code in (400, 409), response.content
        assert response.json()["message"]
    order.refresh_from_db()
    assert (order.status, order.version) == ("created", 1)


@pytest.mark.parametrize(
    "hostile", [value for value in HOSTILE.values() if value != "\ud800"], ids=lambda value: repr(value)[:20]
)
def test_a_hostile_idempotency_key_is_refused_with_a_reason(client, hostile):
    # A header is bytes on the wire; WSGI hands it over decoded as latin-1.
    header = hostile.encode("utf-8", "replace").decode("latin-1")
    response = client.post("/api/orders/", VALID_ORDER, format="json", HTTP_IDEMPOTENCY_KEY=header)
    if len(header) <= 255 and header.isascii() and header.isprintable() and " " not in header:
        assert response.status_code == 201  # visible ASCII such as the HTML or a quote is a fine key
    else:
        assert response.status_code == 400
        assert response.json()["fields"]["Idempotency-Key"] == ["Use 1 to 255 visible ASCII characters."]


def test_the_invisible_characters_are_named_in_the_reason(client):
    response = _post_json(client, "/api/orders/", {**VALID_ORDER, "customer_email": "ada@\u202eexample.com"})
    assert response.status_code == 400
    assert response.json()["fields"]["customer_email"] == [
        "The address contains the invisible or control character U+202E, which no email address needs."
    ]


def test_a_lone_surrogate_is_a_400_that_says_what_it_is(client):
    response = client.generic(
        "POST", "/api/orders/", '{"customer_email": "a@example.com", "\\ud800": 1}', "application/json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "parse_error",
        "message": "JSON parse error - the body contains a lone surrogate (\\ud800), "
        "which is not a character.",
    }


# Addresses EmailValidator accepts that carry markup, SQL and unusual (visible) Unicode.
STORED = [
    f'"{SCRIPT}"@example.com',
    '"\';DROP_TABLE_orders_order;--"@example.com',
    "ada@e\u0301\u0301.example.com",
    "ada@b\u00fccher.example",
]


@pytest.mark.parametrize("address", STORED)
def test_a_hostile_address_that_is_stored_is_shown_escaped_in_the_admin(client, address):
    # given: the API stored it verbatim
    response = _post_json(client, "/api/orders/", {**VALID_ORDER, "customer_email": address})
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    assert order.customer_email == address
    notification = Notification.objects.get(order=order)
    admin = Client()
    admin.force_login(
        get_user_model().objects.create_superuser("boss", "boss@example.com", password=uuid.uuid4().hex)
    )
    escaped = (
        address.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )
    # when
    pages = {
        "order list": admin.get("/admin/orders/order/"),
        "order page": admin.get(f"/admin/orders/order/{order.id}/change/"),
        "notification page": admin.get(f"/admin/notifications/notification/{notification.pk}/change/"),
    }
    # then
    for name, page in pages.items():
        assert page.status_code == 200, name
        html = page.content.decode()
        assert escaped in html, name
        assert SCRIPT not in html, name
