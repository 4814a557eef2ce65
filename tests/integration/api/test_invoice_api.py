"""GET /api/orders/<id>/invoice.pdf and /documents/<number>.pdf: the order's invoice as the
customer's email carried it, to the client that placed the order only (another client's order
is the 404 of an unknown one); none before the order is paid (404 `no_invoice`, the reason
said); a document of another order is not reachable by its number through this one; one
deleted at the end of its retention period is a 404 `document_deleted` that says so."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from orders.invoicing.retention import invoices_delete_expired
from orders.models import Invoice, Order
from tests.integration.invoices.conftest import pdf_text
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db


def _placed(client: APIClient, number: str = "1001") -> Order:
    response = client.post("/api/orders/", SHOP_ORDER | {"number": number}, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _paid(client: APIClient, number: str = "1001") -> Order:
    order = _placed(client, number)
    assert client.post(f"/api/orders/{order.id}/pay/", {}, format="json").status_code == 200
    return order


def test_a_paid_order_s_invoice_is_served_as_its_pdf(client):
    order = _paid(client)
    invoice = Invoice.objects.get(order=order)
    response = client.get(f"/api/orders/{order.id}/invoice.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{invoice.number_text}.pdf"'
    assert f"Invoice {invoice.number_text}" in pdf_text(response.content)
    # the same bytes every time, and by its number
    again = client.get(f"/api/orders/{order.id}/documents/{invoice.number_text}.pdf")
    assert again.status_code == 200
    assert again.content == response.content


def test_before_its_payment_an_order_has_no_invoice_and_says_why(client):
    order = _placed(client)
    response = client.get(f"/api/orders/{order.id}/invoice.pdf")
    assert response.status_code == 404
    assert response.json()["error"] == "no_invoice"
    assert "issued when the order is paid" in response.json()["message"]


def test_another_client_s_order_is_the_404_of_an_unknown_one(client):
    order = _paid(client)
    _, raw = api_token_create(name="another shop")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    theirs = other.get(f"/api/orders/{order.id}/invoice.pdf")
    unknown = other.get(f"/api/orders/{uuid.uuid4()}/invoice.pdf")
    assert theirs.status_code == unknown.status_code == 404
    unknown_id = unknown.wsgi_request.path.split("/")[3]
    assert theirs.json()["message"].replace(str(order.id), "?") == unknown.json()["message"].replace(
        unknown_id, "?"
    )
    number = Invoice.objects.get(order=order).number_text
    assert other.get(f"/api/orders/{order.id}/documents/{number}.pdf").status_code == 404
    assert APIClient().get(f"/api/orders/{order.id}/invoice.pdf").status_code == 401


def test_a_document_of_another_order_is_not_reached_through_this_one(client):
    first, second = _paid(client, "1001"), _paid(client, "1002")
    number = Invoice.objects.get(order=second).number_text
    assert client.get(f"/api/orders/{first.id}/documents/{number}.pdf").status_code == 404
    for odd in ("..%2F..%2Fsettings", "INV-000001%00", "%2e%2e"):
        assert client.get(f"/api/orders/{first.id}/documents/{odd}.pdf").status_code == 404


def test_a_document_deleted_after_its_retention_period_is_a_404_that_says_so(client):
    order = _paid(client)
    invoice = Invoice.objects.get(order=order)
    Invoice.objects.filter(pk=invoice.pk).update(issued_at=timezone.now() - timedelta(days=11 * 366))
    assert invoices_delete_expired(now=timezone.now(), batch_size=100, max_batches=10) == 1
    # when
    latest = client.get(f"/api/orders/{order.id}/invoice.pdf")
    by_number = client.get(f"/api/orders/{order.id}/documents/{invoice.number_text}.pdf")
    # then: not "no invoice yet", but which one went, when and why
    for response in (latest, by_number):
        assert response.status_code == 404
        assert response.json()["error"] == "document_deleted"
        assert response.json()["message"].startswith(f"Invoice {invoice.number_text} was deleted on ")
        assert "at the end of its retention period" in response.json()["message"]
    # another client still learns nothing of the order
    _, raw = api_token_create(name="another shop")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert other.get(f"/api/orders/{order.id}/invoice.pdf").json()["error"] == "not_found"
