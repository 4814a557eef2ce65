"""A change of what an invoiced order holds: a credit note of what is left of its invoice and a
new invoice of the changed content, the next numbers of its series, both carried by the "order
changed" email; a change of an order not invoiced yet issues nothing (its invoice, at payment,
bills the content of that moment); a refund after the change is credited against the new
invoice, but for the overpayment a change down left, which corrects no invoice; a refund before
the change is credited again against the new invoice, which bills the whole content."""

import pytest

from orders.edits import order_edit
from orders.models import Invoice, OrderEdit
from orders.refunds import RefundRequest, refund_create

pytestmark = pytest.mark.django_db(transaction=True)

# Three mugs instead of two: 3 x 14.90 + 18.10 + 4.90 - 2.90 = 64.80
MORE_MUGS = {
    "lines": [
        {
            "sku": "MUG-BLUE",
            "name": "Blue mug",
            "quantity": 3,
            "unit_price": 1490,
            "total": 4470,
            "tax_rate": "0.19",
        },
        {
            "sku": "TEA-EARL",
            "name": "Earl Grey, 250 g",
            "quantity": 1,
            "unit_price": 1810,
            "total": 1810,
            "tax_rate": "0.07",
        },
    ],
    "total": 6480,
}


def test_an_edit_of_an_invoiced_order_credits_the_invoice_and_issues_a_new_one(place_order):
    order = place_order(paid=True)
    first = Invoice.objects.get(order=order)
    order_edit(order_id=order.id, api_token=None, parts=MORE_MUGS)
    edit = OrderEdit.objects.get(order=order)
    note = Invoice.objects.get(order=order, kind="credit_note")
    new = Invoice.objects.get(order=order, kind="invoice", version_number=2)
    assert (note.number, new.number) == (2, 3)  # the next numbers of the series, in that order
    assert (note.corrects_id, note.total_minor, new.total_minor) == (first.pk, -4990, 6480)
    for document in (note, new):
        assert (document.email_kind, document.email_subject_id) == ("order_edit", edit.pk)
    # a refund after it is credited against the new invoice
    refund_create(
        order_id=order.id, api_token=None, request=RefundRequest(shop_refund_id="r1", amount_minor=1490)
    )
    refund_note = Invoice.objects.get(order=order, kind="credit_note", refund__isnull=False)
    assert refund_note.corrects_id == new.pk


def test_an_edit_after_a_refund_credits_what_is_left_and_the_refund_again(place_order):
    # paid 49.90, 10.00 refunded, then changed to 64.80: the new invoice bills the whole content,
    # so the refund is credited against it again, and the documents bill 64.80 - 10.00
    order = place_order(paid=True)
    refund_create(
        order_id=order.id, api_token=None, request=RefundRequest(shop_refund_id="r1", amount_minor=1000)
    )
    order_edit(order_id=order.id, api_token=None, parts=MORE_MUGS)
    new = Invoice.objects.get(order=order, kind="invoice", version_number=2)
    notes = list(Invoice.objects.filter(order=order, kind="credit_note").order_by("number"))
    assert [note.total_minor for note in notes] == [-1000, -3990, -1000]
    assert notes[-1].corrects_id == new.pk
    assert sum(Invoice.objects.filter(order=order).values_list("total_minor", flat=True)) == 5480


def test_an_edit_of_an_order_not_invoiced_yet_issues_nothing(place_order):
    order = place_order(paid=False)
    order_edit(order_id=order.id, api_token=None, parts=MORE_MUGS)
    assert not Invoice.objects.filter(order=order).exists()


def test_a_refund_of_the_overpayment_credits_no_invoice(place_order):
    # paid 49.90, changed down to one tea (18.10 + 4.90 shipping = 23.00), then 30.00 refunded:
    # 26.90 of it is the overpayment, which corrects no invoice; the 3.10 beyond it is credited
    order = place_order(paid=True)
    less = {
        "lines": [
            {
                "sku": "TEA-EARL",
                "name": "Earl Grey, 250 g",
                "quantity": 1,
                "unit_price": 1810,
                "total": 1810,
                "tax_rate": "0.07",
            }
        ],
        "discounts": [],
        "tax_total": 150,
        "total": 2300,
    }
    order_edit(order_id=order.id, api_token=None, parts=less)
    refund_create(
        order_id=order.id, api_token=None, request=RefundRequest(shop_refund_id="r1", amount_minor=3000)
    )
    new = Invoice.objects.get(order=order, kind="invoice", version_number=2)
    note = Invoice.objects.get(order=order, kind="credit_note", refund__isnull=False)
    assert (note.corrects_id, note.total_minor) == (new.pk, -310)
