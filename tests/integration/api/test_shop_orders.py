"""A shop's order through POST /api/orders/: its number, customer, lines, addresses, shipping,
discounts and totals in minor units; what does not add up is refused whole, what was
accepted is kept as it came, and the short body of the first release still works."""

import pytest
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.content.snapshot import email_render_for_order
from notifications.models import Notification
from orders.content import MAX_LINES
from orders.models import Order, OrderVersion
from tests.shop_order_bodies import SHOP_ORDER, shop_order_body

pytestmark = pytest.mark.django_db


def _nothing_stored() -> bool:
    return (
        not Order.objects.exists() and not OutboxEvent.objects.exists() and not Notification.objects.exists()
    )


def test_a_shop_order_is_kept_as_it_came_and_shown_with_its_number(client):
    # when
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    # then
    assert response.status_code == 201, response.content
    body = response.json()
    order = Order.objects.get(id=body["id"])
    assert (order.number, order.customer_name, str(order.amount), order.currency) == (
        "1001",
        "Ada Lovelace",
        "34.80",
        "EUR",
    )
    [version] = OrderVersion.objects.filter(order=order)
    assert (version.number, order.content_version, version.total_minor) == (1, 1, 3480)
    assert version.content == SHOP_ORDER  # as it came: tax rates stay the strings they were sent as
    assert body["number"] == "1001"
    assert body["customer_name"] == "Ada Lovelace"
    assert body["content"] == SHOP_ORDER
    assert client.get(f"/api/orders/{order.id}/").json()["content"] == SHOP_ORDER
    assert OutboxEvent.objects.get(aggregate_id=str(order.id)).event_type == "order.created"


def test_the_short_body_of_the_first_release_is_still_an_order_without_number_or_content(client):
    response = client.post(
        "/api/orders/",
        {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["number"], body["customer_name"], body["content"]) == (None, "", None)
    assert not OrderVersion.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            {"lines": [{**SHOP_ORDER["lines"][0]}, {**SHOP_ORDER["lines"][1], "total": 999}]},
            "lines[1].total",
            ["Line 2 (MUG-1)", "1 x 990 = 990", "999"],
        ),
        ({"total": 3481}, "total", ["lines (3490)", "shipping (490)", "discounts (500)", "3480", "3481"]),
        ({"discounts": [{"amount": 3980}], "total": 0}, "total", ["greater than or equal to 1"]),
        ({"tax_total": 3481}, "tax_total", ["3481", "3480"]),
    ],
)
def test_amounts_that_do_not_add_up_are_a_400_naming_the_first_mismatch_and_nothing_is_stored(
    client, change, field, words
):
    # when
    response = client.post("/api/orders/", shop_order_body(**change), format="json")
    # then
    assert response.status_code == 400, response.content
    problems = response.json()["fields"]
    assert list(problems) == [field]
    for word in words:
        assert word in problems[field][0]
    assert _nothing_stored()


def test_a_total_the_currency_cannot_hold_is_refused_on_the_total():
    # KWD has three decimals; orders keep two, so 12.345 cannot be kept (orders/currencies.py)
    body = shop_order_body(
        currency="KWD",
        lines=[
            {"sku": "A", "name": "A", "quantity": 1, "unit_price": 12345, "total": 12345, "tax_rate": "0"}
        ],
        shipping={"method": "post", "price": 0},
        discounts=[],
        tax_total=0,
        total=12345,
    )
    _, raw = api_token_create(name="kwd")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = client.post("/api/orders/", body, format="json")
    assert response.status_code == 400, response.content
    assert "12.345" in response.json()["fields"]["total"][0]
    assert _nothing_stored()


LINE = SHOP_ORDER["lines"][0]
ADDRESS = SHOP_ORDER["shipping_address"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"lines": [LINE] * (MAX_LINES + 1)}, "lines"),
        ({"lines": []}, "lines"),
        ({"lines": [{**LINE, "sku": "X" * 65}]}, "lines[0].sku"),
        ({"lines": [LINE, {**LINE, "quantity": 0, "total": 0}]}, "lines[1].quantity"),
        ({"lines": [{**LINE, "tax_rate": "1.5"}]}, "lines[0].tax_rate"),
        ({"lines": [{**LINE, "colour": "green"}]}, "lines[0].colour"),
        ({"number": "N" * 65}, "number"),
        ({"customer_name": "x" * 201}, "customer_name"),
        ({"customer_name": "Ada\u202eLovelace"}, "customer_name"),
        ({"shipping_address": {**ADDRESS, "country": "XX"}}, "shipping_address.country"),
        ({"shipping_address": {**ADDRESS, "city": "c" * 201}}, "shipping_address.city"),
        ({"discounts": [{"amount": 0}]}, "discounts[0].amount"),
        ({"total": 10**14}, "total"),
        ({"amount": "34.80"}, "amount"),
    ],
)
def test_each_limit_and_unknown_field_is_a_400_naming_the_field(client, change, field):
    response = client.post("/api/orders/", shop_order_body(**change), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert _nothing_stored()


def test_a_shop_order_without_its_required_parts_is_a_400_naming_each():
    body = {
        key: value for key, value in SHOP_ORDER.items() if key not in {"customer_name", "shipping_address"}
    }
    _, raw = api_token_create(name="partial")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = client.post("/api/orders/", body, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"customer_name", "shipping_address"}


def test_the_same_number_sent_again_is_the_same_order_and_with_other_content_a_409(client):
    first = client.post("/api/orders/", SHOP_ORDER, format="json")
    # when the shop sends it again (its retry)
    again = client.post("/api/orders/", SHOP_ORDER, format="json")
    # then
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    # when the same number comes with other content
    other = client.post("/api/orders/", shop_order_body(customer_name="Someone Else"), format="json")
    # then
    assert other.status_code == 409
    assert other.json()["error"] == "order_number_taken"
    assert first.json()["id"] in other.json()["message"]
    assert Order.objects.count() == 1


def test_another_token_may_use_the_same_number(client):
    client.post("/api/orders/", SHOP_ORDER, format="json")
    _, raw = api_token_create(name="another shop")
    other_shop = APIClient()
    other_shop.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert other_shop.post("/api/orders/", SHOP_ORDER, format="json").status_code == 201
    assert Order.objects.filter(number="1001").count() == 2


def test_the_schema_shows_both_forms_of_the_body(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    body = schema["paths"]["/api/orders/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/OrderCreateInput"}
    forms = schema["components"]["schemas"]["OrderCreateInput"]["oneOf"]
    assert forms == [
        {"$ref": "#/components/schemas/ShopOrderInput"},
        {"$ref": "#/components/schemas/ShortOrderInput"},
    ]
    shop = schema["components"]["schemas"]["ShopOrderInput"]
    assert shop["properties"]["lines"]["maxItems"] == MAX_LINES
    assert {"number", "customer_name", "lines", "shipping_address", "total"} <= set(shop["required"])


def test_the_confirmation_shows_the_shops_number(client):
    order = Order.objects.get(id=client.post("/api/orders/", SHOP_ORDER, format="json").json()["id"])
    rendered, _ = email_render_for_order(kind="order_confirmation", order=order, version=None)
    assert rendered.subject.startswith("Your order 1001 at ")
    assert "1001" in rendered.text
    assert str(order.id)[:8].upper() not in rendered.text


def test_the_admin_shows_the_number_and_what_was_bought_escaped(client, admin_client):
    body = shop_order_body(customer_name="<script>alert(1)</script>")
    order_id = client.post("/api/orders/", body, format="json").json()["id"]
    # when
    page = admin_client.get(f"/admin/orders/order/{order_id}/change/").content.decode()
    # then
    assert "1001" in page
    assert "Green tea" in page
    assert "TEA-GREEN" in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;" in page
