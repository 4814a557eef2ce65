"""A customer's export (privacy/export.py) holds each of their invoices and credit notes as
issued (its data, as orders/personal_data.py writes it), never its PDF: the PDF's bytes (a
version's may take megabytes each) are not even read from the database, and the documents of
all their orders are read at once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.documents.pdf import invoice_pdf
from orders.models import Invoice
from privacy.export import customer_export

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_export_holds_the_documents_as_issued_without_reading_their_pdfs(place_order):
    # given: two paid orders of one customer, their invoices' PDFs rendered and stored
    orders = [place_order(paid=True, number=number) for number in ("1001", "1002")]
    invoices = [Invoice.objects.get(order=order) for order in orders]
    for invoice in invoices:
        invoice_pdf(invoice)
    # when
    with CaptureQueriesContext(connection) as queries:
        document = customer_export(orders[0].customer_email)
    # then: each invoice as issued, read in one query without its PDF
    exported = [order["invoices and credit notes"] for order in document["orders"]]
    assert [[item["number"] for item in documents] for documents in exported] == [
        [invoice.number_text] for invoice in invoices
    ]
    assert exported[0][0]["buyer"] == invoices[0].data["buyer"]
    reading = [q["sql"] for q in queries.captured_queries if 'FROM "orders_invoice"' in q["sql"]]
    assert reading
    assert not [sql for sql in reading if '"orders_invoice"."pdf"' in sql], reading
    assert len(reading) == 1, reading  # the documents of all the orders at once
