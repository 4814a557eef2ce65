"""The runs of invoice numbers voided after a database restore, in the admin (*Voided invoice
numbers*): listed read-only with the series, the run, the reason, who voided it and when, to
staff with the view permission. No one adds, changes or deletes one there, not even a
superuser: a void is manage.py invoice_numbers_void's, which moves the series' counter past the
run under the counter row's lock in the same transaction."""

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from orders.invoicing.numbering import API_SERIES
from orders.invoicing.voiding import invoice_numbers_void
from orders.models import VoidedInvoiceNumbers

pytestmark = pytest.mark.django_db(transaction=True)
ADMIN = "/admin/orders/voidedinvoicenumbers/"
REASON = "restore of 2026-12-06"


@pytest.fixture
def voided() -> VoidedInvoiceNumbers:
    invoice_numbers_void(series=API_SERIES, through=9, reason=REASON, actor="olga", new_series=True)
    return VoidedInvoiceNumbers.objects.get()


def _staff(*codenames: str) -> Client:
    user = User.objects.create_user("clerk", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def test_staff_with_the_view_permission_see_each_voided_run_with_why_who_and_when(voided):
    client = _staff("view_voidedinvoicenumbers")
    assert "Voided invoice numbers</a>" in client.get("/admin/").content.decode()
    listing = client.get(ADMIN)
    assert listing.status_code == 200
    page = listing.content.decode()
    for shown in (API_SERIES, REASON, "olga", f"{voided.voided_at:%Y}"):
        assert shown in page, shown
    assert '<td class="field-first">1</td>' in page
    assert '<td class="field-last">9</td>' in page
    assert 'value="delete_selected"' not in page
    change_page = client.get(f"{ADMIN}{voided.pk}/change/")
    assert change_page.status_code == 200
    assert 'name="_save"' not in change_page.content.decode()  # shown, not editable


def test_no_one_adds_changes_or_deletes_a_voided_run_in_the_admin(voided, admin_client):
    assert admin_client.get(f"{ADMIN}add/").status_code == 403
    changed = {"series": API_SERIES, "first": "1", "last": "3", "reason": "typo", "voided_by": "x"}
    assert admin_client.post(f"{ADMIN}add/", changed).status_code == 403
    assert admin_client.post(f"{ADMIN}{voided.pk}/change/", changed).status_code == 403
    assert admin_client.post(f"{ADMIN}{voided.pk}/delete/", {"post": "yes"}).status_code == 403
    actions = {"action": "delete_selected", "_selected_action": [voided.pk], "post": "yes"}
    admin_client.post(ADMIN, actions)
    assert list(VoidedInvoiceNumbers.objects.values_list("first", "last", "reason")) == [(1, 9, REASON)]


def test_staff_without_the_view_permission_see_none(voided):
    assert _staff().get(ADMIN).status_code == 403
