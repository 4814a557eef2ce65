"""What an email is about beyond the order, as its template sees it: the parcel of a shipment's
email (`shipment.*`), the refund of a refund's email (`refund.*`), the refunds announced with a
cancellation (`cancellation.*`). The claim reads the rows in its own statement
(delivery/claim_read.py); previews read them here (`notification_about`)."""

from typing import Any

from notifications.content.formatting import money_format
from notifications.content.purchase import shown_sku
from notifications.models import Notification
from orders.changes import order_paid_minor
from orders.content import minor_to_amount
from orders.models import DeletedInvoice, Order
from orders.selectors import cancellation_about, edit_row, invoice_row, refund_row, shipment_row
from orders.shipments import tracking_url_problem

SHIPMENT = Notification.Kind.ORDER_SHIPMENT
REFUND = Notification.Kind.ORDER_REFUND
CANCELLATION = Notification.Kind.ORDER_CANCELLATION
# A parcel's news: about the parcel, as its "shipped" email is.
PARCEL_NEWS = (
    Notification.Kind.PARCEL_IN_TRANSIT,
    Notification.Kind.PARCEL_OUT_FOR_DELIVERY,
    Notification.Kind.PARCEL_DELIVERED,
    Notification.Kind.PARCEL_DELIVERY_FAILED,
)
PARCEL_KINDS = (SHIPMENT, *PARCEL_NEWS)
EDIT = Notification.Kind.ORDER_EDIT
INVOICE = Notification.Kind.ORDER_INVOICE
# an order may have several: each email names its subject
SUBJECT_KINDS = (*PARCEL_KINDS, REFUND, EDIT, INVOICE)


def email_kind_words(kind: str) -> str:
    """The kind in words, as Notification.Kind labels it ("shipment", "refund")."""
    return Notification.Kind(kind).label.lower()


def about_context(
    kind: str, about: dict[str, Any] | None, order: Order, locale: str, line_ids: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The template values of `about` for an email of `kind`; none for the kinds about the
    order alone, and none when `about` is missing (the template then names what it lacks).
    `line_ids`: the order's keys that are no SKU of the shop's (orders.content.line_id_skus)."""
    if kind == CANCELLATION:
        return {"cancellation": _cancellation(about or {}, order, locale)}
    if about is None:
        return {}
    if kind in PARCEL_KINDS:
        return {"shipment": _shipment(about, line_ids)}
    if kind == REFUND:
        return {"refund": _refund(about, order, locale, line_ids)}
    if kind == EDIT:
        return {"edit": _edit(about, order, locale, line_ids)}
    if kind == INVOICE:
        return {
            "invoice": {"number": about["number_text"], "total": _money(about["total_minor"], order, locale)}
        }
    return {}


def notification_about(notification: Notification) -> dict[str, Any] | None:
    """What the claim would read for this email (a preview renders with it)."""
    if notification.kind == CANCELLATION:
        return cancellation_about(notification.order_id)
    if notification.subject_id is None:
        return None
    if notification.kind in PARCEL_KINDS:
        return shipment_row(notification.subject_id)
    if notification.kind == REFUND:
        return refund_row(notification.subject_id)
    if notification.kind == EDIT:
        return edit_row(notification.subject_id)
    if notification.kind == INVOICE:
        return invoice_row(notification.subject_id)
    return None


def _shipment(shipment: dict[str, Any], line_ids: frozenset[str]) -> dict[str, Any]:
    return {
        "id": shipment["shop_shipment_id"],
        "carrier": shipment["carrier"],
        "tracking_number": shipment["tracking_number"],
        # The rule a link meets when it is stored, again: one stored by an older release
        # (a platform's http:// link) never becomes the email's button.
        "tracking_url": "" if tracking_url_problem(shipment["tracking_url"]) else shipment["tracking_url"],
        "lines": _lines(shipment["lines"], line_ids),
    }


def _refund(refund: dict[str, Any], order: Order, locale: str, line_ids: frozenset[str]) -> dict[str, Any]:
    return {
        "id": refund["shop_refund_id"],
        "amount": _money(refund["amount_minor"], order, locale),
        "reason": refund["reason"],
        "lines": _lines(refund["lines"], line_ids),
    }


def _edit(edit: dict[str, Any], order: Order, locale: str, line_ids: frozenset[str]) -> dict[str, Any]:
    """What changed, line by line: added (none before), removed (none after), or changed in
    quantity or price; and the total before and after."""

    def price(minor: int | None) -> str:
        return _money(minor, order, locale) if minor is not None else ""

    return {
        "added": [_edit_line(line, line_ids, price) for line in edit["lines"] if not line["before"]],
        "removed": [_edit_line(line, line_ids, price) for line in edit["lines"] if not line["after"]],
        "changed": [
            _edit_line(line, line_ids, price) for line in edit["lines"] if line["before"] and line["after"]
        ],
        "total_before": _money(edit["total_before_minor"], order, locale),
        "total_after": _money(edit["total_after_minor"], order, locale),
    }


def _edit_line(line: dict[str, Any], line_ids: frozenset[str], price: Any) -> dict[str, str]:
    return {  # an erased order's change keeps no SKU and no name (orders/personal_data.py)
        "sku": shown_sku(line.get("sku", ""), line_ids),
        "name": line.get("name", ""),
        "before": str(line["before"]),
        "after": str(line["after"]),
        "price_before": price(line["unit_price_before"]),
        "price_after": price(line["unit_price_after"]),
    }


def _cancellation(about: dict[str, Any], order: Order, locale: str) -> dict[str, Any]:
    """The refunds announced with the cancellation; and, when none was, what earlier refunds
    gave back (`refunded_before`) and what is left of the order's amount (`left_to_refund`,
    empty when nothing is), so the email never promises the whole amount twice."""
    refunds = about.get("refunds", [])
    total = sum(refund["amount_minor"] for refund in refunds)
    before = about.get("refunded_before") or 0  # none in a row of an older release's claim
    left = minor_to_amount(order_paid_minor(order) - before, order.currency)
    return {
        "refunds": [
            {"amount": _money(refund["amount_minor"], order, locale), "reason": refund["reason"]}
            for refund in refunds
        ],
        "refunded": _money(total, order, locale) if refunds else "",
        "refunded_before": _money(before, order, locale) if before else "",
        "left_to_refund": money_format(left, order.currency, locale) if left > 0 else "",
    }


def _lines(lines: list[dict[str, Any]], line_ids: frozenset[str]) -> list[dict[str, str]]:
    return [
        {"sku": shown_sku(line["sku"], line_ids), "name": line["name"], "quantity": str(line["quantity"])}
        for line in lines
    ]


def _money(minor: int, order: Order, locale: str) -> str:
    return money_format(minor_to_amount(minor, order.currency), order.currency, locale)


def notification_about_words(notification: Notification) -> str:
    """What the email is about, in a line for the review screen."""
    if notification.subject_id is None:
        return "the order"
    row = notification_about(notification)
    if row is None and notification.kind == INVOICE:
        deleted = DeletedInvoice.objects.filter(pk=notification.subject_id).first()
        if deleted is not None:
            return f"invoice {deleted.number_text} (deleted at the end of its retention period)"
    if row is None:
        return f"{email_kind_words(notification.kind)} {notification.subject_id} (not found)"
    if notification.kind in PARCEL_KINDS:
        tracking = f", tracking {row['tracking_number']}" if row["tracking_number"] else ""
        return f"parcel {row['shop_shipment_id']} ({row['carrier']}{tracking})"
    if notification.kind == EDIT:
        return f"the change from version {row['from_version']} to {row['to_version']}"
    if notification.kind == INVOICE:
        return f"invoice {row['number_text']}"
    currency = notification.order.currency
    reason = f" ({row['reason']})" if row["reason"] else ""
    return (
        f"refund {row['shop_refund_id']}: {minor_to_amount(row['amount_minor'], currency)} {currency}{reason}"
    )
