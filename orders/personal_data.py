"""An order's personal data, found by its customer's address and erased at their request.

What goes: the address and the name on the order, the addresses, names and products in what
was bought (each OrderVersion) and in each change of it (OrderEdit), a parcel's tracking, the
carrier's words in a parcel's news (where it was left, with whom), a refund's reason (a
person's words), and the fingerprints of the requests that created them (a hash a guessed body
could be checked against).
What stays, for the shop's books and the reconciliation: the order's number, status, amounts,
currency and dates; each version's totals and each line's quantity and amounts. The order is
marked erased, and the delivery rules send none of its emails afterwards.
"""

import re
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, QuerySet

from infra.address_match import rows_of_address
from orders.models import (
    Invoice,
    Order,
    OrderEdit,
    OrderQuerySet,
    OrderVersion,
    Refund,
    Shipment,
    ShipmentEvent,
)

# Kept from a version's content: amounts and codes, nothing that names or places a person.
_CONTENT_KEPT = ("number", "currency", "total", "tax_total", "locale")
_LINE_KEPT = ("quantity", "unit_price", "total")
# Kept of a change's lines (OrderEdit.lines): the quantities and prices, not what the product was.
_EDIT_LINE_KEPT = ("before", "after", "unit_price_before", "unit_price_after")
# A house number at either end of an address line: "Unter den Linden 1", "221B Baker Street".
_HOUSE_NUMBER = re.compile(r"^\d+\w*[\s,]+|[\s,]+\d+\w*$")


def orders_of_address(address: str) -> OrderQuerySet:
    """Every order placed for the address, in any case and either form of its domain; also
    those already erased (they keep the address's keyed hash), so that an erasure run again
    finds them and changes nothing. The one rule of which rows stand for an address
    (infra/address_match.py): an order whose hash an earlier rule or key made is found by its
    address until `personal_data_rehash` moves the hash, and never by that hash for another."""
    return rows_of_address(Order.objects.all(), "customer_email_hash", "customer_email", address)


def orders_erase(order_ids: list, *, now: datetime) -> dict[str, int]:
    """Erase the orders' personal data, in the caller's transaction (which holds their rows
    locked). Returns how many rows of each kind were changed."""
    orders = Order.objects.filter(id__in=order_ids)
    changed = {
        "orders": orders.filter(erased_at__isnull=True).count(),
        "order_versions": 0,
    }
    # The fingerprints too: a SHA-256 of the request's body, which a guess of it could match.
    orders.update(
        customer_email="", customer_name="", platform_customer_email="", request_fingerprint="", erased_at=now
    )
    for version in OrderVersion.objects.filter(order_id__in=order_ids).only("id", "content"):
        kept = content_without_person(version.content)
        if kept != version.content:
            OrderVersion.objects.filter(pk=version.pk).update(content=kept)
            changed["order_versions"] += 1
    changed["shipments"] = (
        Shipment.objects.filter(order_id__in=order_ids)
        .exclude(tracking_number="", tracking_url="", lines=[], request_fingerprint="")
        .update(tracking_number="", tracking_url="", lines=[], request_fingerprint="")
    )
    changed["order_edits"] = 0
    for order_edit in OrderEdit.objects.filter(order_id__in=order_ids).only("id", "lines"):
        kept_lines = [{key: line[key] for key in _EDIT_LINE_KEPT if key in line} for line in order_edit.lines]
        if kept_lines != order_edit.lines:
            OrderEdit.objects.filter(pk=order_edit.pk).update(lines=kept_lines)
            changed["order_edits"] += 1
    changed["parcel_news"] = (
        ShipmentEvent.objects.filter(shipment__order_id__in=order_ids)
        .exclude(message="", request_fingerprint="")
        .update(message="", request_fingerprint="")
    )
    changed["refunds"] = (
        Refund.objects.filter(order_id__in=order_ids)
        .exclude(reason="", lines=[], request_fingerprint="")
        .update(reason="", lines=[], request_fingerprint="")
    )
    # Invoices and credit notes are the shop's bookkeeping records, kept as issued for their
    # period (models/invoices.py RETENTION_YEARS; GDPR art. 17(3)(b)): counted, not changed,
    # so the erasure's record says what it left and why.
    if changed["orders"]:
        changed["invoices_kept"] = Invoice.objects.filter(order_id__in=order_ids).count()
    return changed


def personal_words(order_ids: list) -> list[str]:
    """What free text elsewhere may quote the customers of these orders by, read before their
    erasure: each name on them, whole and in its parts; each address line, whole and without
    its house number ("Unter den Linden" of "Unter den Linden 1"); a company; a phone."""
    words: set[str] = set()
    names = Order.objects.filter(id__in=order_ids).values_list("customer_name", flat=True)
    contents = OrderVersion.objects.filter(order_id__in=order_ids).values_list("content", flat=True)
    places = [place for content in contents for place in _places(content)]
    for name in [*names, *(place.get("name", "") for place in places)]:
        words.update([name, *name.split()])
    for place in places:
        for key in ("line1", "line2"):
            line = str(place.get(key) or "")
            words.update([line, _HOUSE_NUMBER.sub("", line).strip()])
        words.update([str(place.get("company") or ""), str(place.get("phone") or "")])
    return sorted(word for word in words if len(word.strip()) >= 3)


def _places(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, dict):
        return []
    return [
        content[key] for key in ("shipping_address", "billing_address") if isinstance(content.get(key), dict)
    ]


def content_without_person(content: dict[str, Any]) -> dict[str, Any]:
    """What was bought, without who bought it, where it went or what it was: the totals, and
    each line's quantity and amounts, and shipping's and discounts' amounts."""
    kept: dict[str, Any] = {key: content[key] for key in _CONTENT_KEPT if key in content}
    kept["lines"] = [
        {key: line[key] for key in _LINE_KEPT if key in line} for line in content.get("lines", [])
    ]
    if content.get("shipping"):
        kept["shipping"] = {"price": content["shipping"].get("price", 0)}
    if content.get("discounts"):
        kept["discounts"] = [{"amount": discount.get("amount", 0)} for discount in content["discounts"]]
    return kept


def orders_export(orders: "QuerySet[Order]") -> list[dict[str, Any]]:
    """Each order as its customer would read it: what, when, how much, where it went."""
    exported = []
    # Each document as issued, without its PDF: the export never shows it, and a version's may
    # take megabytes (it is downloaded on its own, from the API or the admin).
    documents = Prefetch("invoices", queryset=Invoice.objects.defer("pdf").order_by("number"))
    related = ("versions", "shipments__events", "refunds", documents)
    for order in orders.order_by("created_at").prefetch_related(*related):
        exported.append(
            {
                "order": str(order.id),
                "order number": order.number or "",
                "placed at": order.created_at.isoformat(),
                "status": order.get_status_display(),
                "amount": str(order.amount),
                "currency": order.currency,
                "email address": order.customer_email,
                "email address as the shop's platform last sent it": order.platform_customer_email or None,
                "name": order.customer_name,
                "language of its emails": order.locale,
                "erased at the customer's request at": order.erased_at.isoformat()
                if order.erased_at
                else None,
                "what was bought, as the shop sent it (each version)": [
                    version.content for version in order.versions.all()
                ],
                "parcels": [_parcel_exported(parcel) for parcel in order.shipments.all()],
                "refunds": [
                    {
                        "amount in minor units": refund.amount_minor,
                        "reason": refund.reason,
                        "lines": refund.lines,
                    }
                    for refund in order.refunds.all()
                ],
                # as issued, with what each says of the customer (its PDF: the API, the admin)
                "invoices and credit notes": [
                    {"number": document.number_text, "kind": document.get_kind_display()} | document.data
                    for document in order.invoices.all()
                ],
            }
        )
    return exported


def _parcel_exported(parcel: Shipment) -> dict[str, Any]:
    return {
        "carrier": parcel.carrier,
        "tracking number": parcel.tracking_number,
        "tracking link": parcel.tracking_url,
        "lines": parcel.lines,
        "announced at": parcel.created_at.isoformat(),
        "news from the carrier": [
            {
                "status": news.get_status_display(),
                "happened at": news.happened_at.isoformat(),
                "carrier's words": news.message,
            }
            for news in parcel.events.all()
        ],
    }
