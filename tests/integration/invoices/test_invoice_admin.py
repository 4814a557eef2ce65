"""The invoices in the admin: listed read-only with a link to each PDF, the stored file byte for
byte; no one adds, changes or deletes one (a legal record, a gap-free sequence); staff without
the view permission get no PDF."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from notifications.documents.pdf import invoice_pdf
from orders.models import Invoice

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_superuser_lists_the_invoices_and_downloads_the_stored_pdf(place_order, admin_client):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    listing = admin_client.get("/admin/orders/invoice/")
    assert listing.status_code == 200
    assert invoice.number_text in listing.content.decode()
    response = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/pdf/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content == invoice_pdf(Invoice.objects.get(pk=invoice.pk))
    page = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/change/").content.decode()
    assert 'name="_save"' not in page  # read-only
    assert admin_client.get("/admin/orders/invoice/add/").status_code == 403
    assert (
        admin_client.post(f"/admin/orders/invoice/{invoice.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert Invoice.objects.filter(pk=invoice.pk).exists()


def test_staff_without_the_view_permission_get_no_pdf(place_order):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    clerk = User.objects.create_user("clerk", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.get(f"/admin/orders/invoice/{invoice.pk}/pdf/").status_code == 403
    assert client.get("/admin/orders/invoice/").status_code == 403
