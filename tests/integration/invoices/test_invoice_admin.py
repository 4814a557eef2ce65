"""The invoices in the admin: listed read-only with a link to each PDF, the stored file byte for
byte; no one adds, changes or deletes one (a legal record, a gap-free sequence); staff without
the view permission get no PDF. One the retention job deleted answers 404 on its page and its
PDF, saying which it was and when and why it went."""

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from notifications.content.about import notification_about_words
from notifications.documents.pdf import invoice_pdf
from notifications.models import Notification
from orders.changes import order_pay
from orders.invoicing.retention import invoices_delete_expired
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


def _deleted_after_its_period(invoice: Invoice) -> None:
    Invoice.objects.filter(pk=invoice.pk).update(issued_at=timezone.now() - timedelta(days=11 * 366))
    assert invoices_delete_expired(now=timezone.now(), batch_size=100, max_batches=10) == 1


def test_a_document_deleted_after_its_period_answers_404_saying_why(place_order, admin_client):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    _deleted_after_its_period(invoice)
    # when
    page = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/change/")
    pdf = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/pdf/")
    # then: not Django's redirect home, but which one went, when and why
    for response in (page, pdf):
        assert response.status_code == 404
        said = response.content.decode()
        assert f"Invoice {invoice.number_text} was deleted on" in said
        assert "at the end of its retention period" in said
    assert invoice.number_text not in admin_client.get("/admin/orders/invoice/").content.decode()
    # an id that never was one is still Django's answer
    assert admin_client.get(f"/admin/orders/invoice/{uuid.uuid4()}/pdf/").status_code == 404
    assert admin_client.get(f"/admin/orders/invoice/{uuid.uuid4()}/change/").status_code == 302


def test_staff_without_the_view_permission_learn_nothing_of_a_deleted_one(place_order):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    _deleted_after_its_period(invoice)
    clerk = User.objects.create_user("clerk", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.get(f"/admin/orders/invoice/{invoice.pk}/pdf/").status_code == 403
    assert client.get(f"/admin/orders/invoice/{invoice.pk}/change/").status_code == 403


def test_the_review_screen_names_the_deleted_invoice_an_email_was_about(place_order):
    order = place_order(paid=False)
    order_pay(order_id=order.id, api_token=None)
    invoice = Invoice.objects.get(order=order)
    email = Notification.objects.get(order=order, kind="order_invoice")
    _deleted_after_its_period(invoice)
    assert notification_about_words(email) == (
        f"invoice {invoice.number_text} (deleted at the end of its retention period)"
    )
