"""GET /api/orders/<id>/invoice.pdf: the order's invoice (its latest, after a change of what it
holds); GET /api/orders/<id>/documents/<number>.pdf: any of its invoices and credit notes by
the number printed on it. Per token as orders are: another client's order is the 404 of an
unknown one. The file is the one the customer's email carried, byte for byte; a document
deleted at the end of its retention period is a 404 that says so (`document_deleted`), one the
invoice template published in the admin does not render a 503 (`document_not_rendered`)
whose reason is logged, not told: it names the template, which is the shop's staff's."""

import logging
import re
from uuid import UUID

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import api_error_response
from api.orders import client_token
from api.schema import error_responses
from notifications.content.errors import RenderError
from notifications.documents.pdf import RENDER_FAILURE_MEMORY_SECONDS, invoice_download
from notifications.documents.template import LayoutInterrupted
from orders.changes import order_not_found_message
from orders.invoicing.retention import deleted_reason
from orders.models import DeletedInvoice, Invoice, Order

logger = logging.getLogger(__name__)
NO_INVOICE = "no_invoice"
DOCUMENT_DELETED = "document_deleted"  # at the end of its retention period
DOCUMENT_NOT_RENDERED = "document_not_rendered"  # by the live template: until staff replace it
# A layout interrupted by the moment (a busy machine, a killed child) is not remembered: the next
# request lays it out again, so the client may come back soon.
LAYOUT_INTERRUPTED_RETRY_AFTER_SECONDS = 10
PRINTED_NUMBER = re.compile(r"[^\x00-\x1f\x7f]{1,80}")  # no control character

_PDF_SCHEMA = extend_schema(
    responses={
        200: OpenApiResponse(OpenApiTypes.BINARY, description="The PDF (application/pdf)."),
        **error_responses(
            with_body=False,
            meaning={
                404: "No order has this id, or the order has no such document: `no_invoice` (none "
                "issued yet), `document_deleted` (deleted at the end of its retention period).",
                503: "`document_not_rendered`: the invoice template published in the admin does not "
                "render this document (the reason is logged); Retry-After says when to try again.",
            },
        ),
    }
)


class OrderInvoiceApi(APIView):
    @_PDF_SCHEMA
    def get(self, request: Request, order_id: UUID) -> HttpResponse | Response:
        order = _order_of_client(request, order_id)
        invoice = Invoice.objects.filter(order=order, kind=Invoice.Kind.INVOICE).order_by("-number").first()
        deleted = (
            DeletedInvoice.objects.filter(order=order, kind=Invoice.Kind.INVOICE).order_by("-number").first()
        )
        if deleted is not None and (invoice is None or deleted.number > invoice.number):
            raise NotFound(deleted_reason(deleted), code=DOCUMENT_DELETED)  # its latest went
        if invoice is None:
            return Response(
                {
                    "error": NO_INVOICE,
                    "message": f"Order {order.number or order.pk} has no invoice yet: it is issued when "
                    "the order is paid (INVOICE_ISSUED_WHEN).",
                },
                status=status.HTTP_404_NOT_FOUND,
            )
        return _download(invoice)


class OrderDocumentApi(APIView):
    @_PDF_SCHEMA
    def get(self, request: Request, order_id: UUID, number: str) -> HttpResponse:
        order = _order_of_client(request, order_id)
        # a number as printed (prefix and digits): anything else names no document, and a
        # NUL would reach PostgreSQL as an error
        known = PRINTED_NUMBER.fullmatch(number) is not None
        invoice = Invoice.objects.filter(order=order, number_text=number).first() if known else None
        if invoice is None:
            deleted = (
                DeletedInvoice.objects.filter(order=order, number_text=number).first() if known else None
            )
            if deleted is not None:
                raise NotFound(deleted_reason(deleted), code=DOCUMENT_DELETED)
            raise NotFound(f"Order {order.number or order.pk} has no invoice or credit note {number}.")
        return _download(invoice)


def _download(invoice: Invoice) -> HttpResponse:
    try:
        return invoice_download(invoice)
    except LayoutInterrupted as exc:  # the machine's moment, not the template's
        logger.warning("invoice %s: the PDF's layout was interrupted: %s", invoice.pk, exc)
        response = api_error_response(
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            error=DOCUMENT_NOT_RENDERED,
            message=f"{invoice.number_text} could not be laid out just now; try again in a moment.",
        )
        response["Retry-After"] = str(LAYOUT_INTERRUPTED_RETRY_AFTER_SECONDS)
        return response
    except RenderError as exc:  # stored nothing: the next download renders it again
        logger.error("invoice %s: the PDF does not render: %s", invoice.pk, exc)
        response = api_error_response(
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            error=DOCUMENT_NOT_RENDERED,
            message=f"{invoice.number_text} cannot be rendered now: the invoice template in use does "
            "not render it. The reason is logged for the shop's staff; try again later.",
        )
        response["Retry-After"] = str(RENDER_FAILURE_MEMORY_SECONDS)  # until it is tried again
        return response


def _order_of_client(request: Request, order_id: UUID) -> Order:
    order = Order.objects.placed_by_client_of(client_token(request)).filter(id=order_id).first()
    if order is None:  # missing, or another client's: the same answer (orders/changes.py)
        raise NotFound(order_not_found_message(order_id))
    return order
