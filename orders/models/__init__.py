"""The orders' tables: the order and what was bought (order.py), its changes (edits.py), its
parcels and their news (parcels.py), the money going back (refunds.py), its invoices and
credit notes, the records of those deleted after their period and of numbers voided after a
restore (invoices.py), the dashboard's daily figure (sales.py)."""

from orders.models.edits import OrderEdit
from orders.models.invoices import DeletedInvoice, Invoice, InvoiceSequence, VoidedInvoiceNumbers
from orders.models.order import Order, OrderQuerySet, OrderVersion, site_locale
from orders.models.parcels import ParcelStatus, Shipment, ShipmentEvent
from orders.models.refunds import Refund
from orders.models.sales import DailySales

__all__ = [
    "DailySales",
    "DeletedInvoice",
    "Invoice",
    "InvoiceSequence",
    "Order",
    "OrderEdit",
    "OrderQuerySet",
    "OrderVersion",
    "ParcelStatus",
    "Refund",
    "Shipment",
    "ShipmentEvent",
    "VoidedInvoiceNumbers",
    "site_locale",
]
