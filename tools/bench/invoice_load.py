"""What an invoice costs per order: orders with lines (the email editor's sample order), each
paid at its placing as a shop platform announces one, so that with INVOICE_ISSUED_WHEN=paid its
invoice is issued in the order's transaction and its confirmation carries the PDF; the same
orders with INVOICE_ISSUED_WHEN=off are the same work but for the invoice. What a run was asked
and what it did (orders placed, invoices issued, confirmations sent, emails the simulator took
with a PDF attached) is counted, and a run that did other than asked fails (LoadShortfall).

The plain confirmations of the cpu phase are of short-body orders, never paid: no invoice
whatever INVOICE_ISSUED_WHEN says (orders/invoicing/issue.py), as before invoices existed;
`plain_confirmations_check` holds it to that."""

import copy
from typing import Any

import requests

from tools.bench.pipelines import LoadShortfall

# 100 orders at 10 a second: a PDF takes a worker process about a tenth of a second of CPU, so
# the two processes keep up and each run is over in seconds.
INVOICE_ORDERS, INVOICE_RATE, INVOICE_WARM_UP_ORDERS = 100, 10, 20
# Each worker process's first PDF loads WeasyPrint and Pango, most of a second of CPU: warm-up
# runs until every process has rendered one, or the phase fails rather than price the loading.
INVOICE_WARM_UP_RUNS = 5
PDF = "application/pdf"


def invoiced_orders_place(place: Any, count: int, *, rate: float, first_number: int) -> None:
    """`count` orders with lines, each paid at its placing (its own transaction, as a shop
    platform's delivery has it), at `rate` a second by the bench's placers (`place`:
    tools/bench/measure.py's)."""
    from django.db import transaction

    from notifications.content.samples import SAMPLE_CONTENT
    from orders.content import ShopOrder
    from orders.services import order_record

    def create(index: int) -> None:
        number = first_number + index
        content = copy.deepcopy(SAMPLE_CONTENT)
        content |= {"number": f"BENCH-{number}", "customer_email": f"i{number}@bench.example"}
        shop_order = ShopOrder(content)
        with transaction.atomic(durable=True):
            order_record(
                customer_email=content["customer_email"],
                amount=shop_order.amount,
                currency=content["currency"],
                shop_order=shop_order,
                paid=True,
            )

    place(create, count, rate)


def invoicing(issued: bool) -> Any:
    """The placers' INVOICE_ISSUED_WHEN for a run: "paid" (the default) or "off". The invoice
    is issued in the order's transaction, by the placing process alone: the worker attaches
    what it finds issued for the email, whatever its own setting."""
    from django.test import override_settings  # Django's public way to change a setting live

    from orders.invoicing.issue import OFF, PAID

    return override_settings(INVOICE_ISSUED_WHEN=PAID if issued else OFF)


def paid_orders_counted() -> int:
    """Paid orders counted so far by the `order.paid` handler (the worker's analytics queue)."""
    from django.db.models import Sum

    from orders.models import DailySales

    return DailySales.objects.aggregate(counted=Sum("paid_orders"))["counted"] or 0


def invoice_run_done(mailsim_url: str) -> dict[str, Any]:
    """What the run did: orders placed, invoices issued, confirmations sent and those whose
    snapshot names a document, and what the simulator took (since its reset): messages, those
    with a PDF attached, and the PDFs' sizes."""
    from notifications.models import DeliveryAttempt, Notification
    from orders.models import Invoice, Order

    sent = Notification.objects.filter(kind=Notification.Kind.ORDER_CONFIRMATION, status="sent")
    carrying = sent.exclude(email_attachments=[])
    senders = DeliveryAttempt.objects.filter(notification__in=carrying, outcome="accepted")
    taken = requests.get(f"{mailsim_url}/_sim/messages", timeout=60).json()["messages"]
    pdfs = [[found for found in message["attachments"] if found["content_type"] == PDF] for message in taken]
    return {
        "orders_placed": Order.objects.count(),
        "invoices_issued": Invoice.objects.filter(kind=Invoice.Kind.INVOICE).count(),
        "emails_sent": sent.count(),
        "emails_naming_a_document": carrying.count(),
        # each worker process that sent one has loaded WeasyPrint (the warm-up waits for all)
        "processes_that_sent_a_document": sorted(set(senders.values_list("worker", flat=True))),
        "messages_taken": len(taken),
        "messages_with_a_pdf": sum(1 for found in pdfs if found),
        "pdf_bytes": sorted(attachment["size"] for found in pdfs for attachment in found),
    }


def invoice_run_check(done: dict[str, Any], *, asked: int, issued: bool) -> None:
    """Every order asked placed, its confirmation sent and taken by the simulator, and each with
    one PDF if invoices were issued, none otherwise; or a LoadShortfall that says what was
    asked and what was done."""
    documents = asked if issued else 0
    expected = {
        "orders_placed": asked,
        "invoices_issued": documents,
        "emails_sent": asked,
        "emails_naming_a_document": documents,
        "messages_taken": asked,
        "messages_with_a_pdf": documents,
    }
    found = {name: done[name] for name in expected}
    if found != expected or len(done["pdf_bytes"]) != documents:
        what = "with" if issued else "without"
        raise LoadShortfall(
            f"invoice, {what} invoices: asked {asked} orders, expected {expected}, "
            f"found {found} and {len(done['pdf_bytes'])} PDFs"
        )


def plain_confirmations_check(orders: int) -> None:
    """The cpu phase's confirmations carry no document: none issued, none named by an email,
    or the plain confirmation's CPU would price a PDF too."""
    from notifications.models import Notification
    from orders.models import Invoice

    invoices = Invoice.objects.count()
    carrying = Notification.objects.exclude(email_attachments=[]).count()
    if invoices or carrying:
        raise LoadShortfall(
            f"cpu: {orders} plain confirmations asked, but {invoices} invoices were issued "
            f"and {carrying} emails carry a document"
        )


INVOICE_COMPONENTS = (
    ("bench", "placers (the order's transaction; with the invoice's issue and number)"),
    ("worker", "worker (with the PDF's render)"),
    ("relay", "relay"),
    ("beat", "beat"),
    ("mailsim", "mail simulator (takes the attachment)"),
    ("postgresql", "PostgreSQL"),
    ("rabbitmq", "RabbitMQ"),
    ("total", "total"),
)


def invoice_lines(invoice: dict | None) -> list[str]:
    """CPU ms per order by component without and with the invoice, what it adds, and what the
    runs were asked and did."""
    if not invoice:
        return []
    without, with_ = invoice["without"], invoice["with"]
    rows = []
    for key, label in INVOICE_COMPONENTS:
        before, after = without["cpu_ms_per_order"].get(key, 0.0), with_["cpu_ms_per_order"].get(key, 0.0)
        ratio = f"{after / before:.2f}" if before else "-"
        rows.append(f"| {label} | {before:.2f} | {after:.2f} | {ratio} | {after - before:+.2f} |")
    worker = invoice["worker_ms_per_email"]
    pdf = invoice["pdf_bytes"]
    runs = len(worker["without"]["runs"])
    return [
        "",
        f"| CPU ms per order at {invoice['rate']} orders/s, {invoice['orders']} orders with lines, "
        "paid at placing | without invoice | with invoice | with ÷ without | added |",
        "|---|---:|---:|---:|---:|",
        *rows,
        f"| worker per email (one confirmation per order), median of {runs} run{'s' if runs > 1 else ''} "
        f"| {worker['without']['median']:.2f} | {worker['with']['median']:.2f} "
        f"| {invoice['worker_ratio']:.2f} | {invoice['worker_added_ms']:+.2f} |",
        "",
        f"Each run asked {invoice['orders']} orders: with invoices, {with_['orders_placed']} placed, "
        f"{with_['invoices_issued']} invoices issued, {with_['messages_with_a_pdf']} of "
        f"{with_['messages_taken']} emails taken with a PDF attached; without, "
        f"{without['orders_placed']} placed, {without['messages_with_a_pdf']} of "
        f"{without['messages_taken']} with one (the median run's counts; every run is checked). "
        f"The PDF: {pdf['median']:,.0f} bytes ({pdf['min']:,.0f} to {pdf['max']:,.0f}).",
    ]
