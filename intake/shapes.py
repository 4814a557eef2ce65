"""What a platform's delivery says, in our words: each platform's mapping (intake/shopify/, ...)
turns its payload into these, and intake/apply.py applies them the same way for every platform.

An order's delivery carries the whole order as the platform has it now (Shopify's and
WooCommerce's order topics do): its content, whether it is paid or cancelled, and every parcel
and refund so far. Applying one is therefore idempotent and catches up with deliveries that were
lost: what we already have is recognised by the platform's ids, what we lack is added."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class Unusable(Exception):
    """The delivery verified but cannot become an order's emails: the message says why, in words
    a person fixing it can act on. The delivery is kept on "Deliveries we could not use"."""


class OrderNotYetReceived(Exception):
    """A parcel or refund of an order we have not received (yet): the delivery waits, and is
    applied when the order arrives."""


@dataclass(frozen=True)
class PlatformShipment:
    shipment_id: str
    carrier: str
    tracking_number: str = ""
    tracking_url: str = ""
    lines: list[dict[str, Any]] = field(default_factory=list)  # [{"sku", "quantity"}]


@dataclass(frozen=True)
class PlatformParcelNews:
    """A carrier's news of a parcel (orders/parcel_progress.py), in our words."""

    shipment_id: str  # the platform's id of the parcel, as its shipment was stored
    event_id: str
    status: str  # one of orders.parcel_progress.REPORTED_STATUSES
    happened_at: datetime
    message: str = ""
    # The platform's status of the parcel now, read from an order (WooCommerce's TrackShip meta),
    # not an event of its own: applied only when it is not the parcel's status already, so that
    # every later save of the order, which carries it again, changes nothing.
    current_state: bool = False


class ParcelNotYetReceived(OrderNotYetReceived):
    """News of a parcel we have not received (yet): the delivery waits, and is applied when a
    delivery records the parcel."""


@dataclass(frozen=True)
class PlatformRefund:
    refund_id: str
    amount_minor: int
    lines: list[dict[str, Any]] = field(default_factory=list)  # [{"sku", "quantity"}]
    reason: str = ""


@dataclass(frozen=True)
class PlatformOrder:
    platform_order_id: str
    # The platform's own time of this state of the order: an older one changes nothing.
    updated_at: datetime
    customer_email: str
    locale: str | None
    # The shop order's content (orders/content.py) as it is now, checked; None when it cannot be
    # taken (content_refused says why): a new order is then refused, one we have keeps its own.
    content: dict[str, Any] | None
    paid: bool
    # Whether what came in covers the content's total, as the platform tells it (Shopify's
    # total_outstanding, Saleor's charge status): `paid` says only that money came in, and an
    # edit that raised the total leaves its balance due until it is collected. Where a platform
    # cannot tell (WooCommerce), its reader says why it takes `paid` for it.
    paid_in_full: bool
    cancelled: bool
    # What came in, in minor units, where the payload proves an amount (Shopify's figures): a
    # payment short of the total (`partially_paid`, an edit's balance due) counts as that much,
    # never as the total. None where it says only that the order is paid: its total then. 0 where
    # a payment is reported but how much cannot be read (payment_unread says why): nothing is
    # counted until the platform proves more (intake/platform_payments.py).
    received_minor: int | None = None
    payment_unread: str = ""
    # The platform says every payment of the order went back (WooCommerce's status refunded, set
    # when its refunds reach the total), with no amount of what came in: an order first seen so
    # is paid what its refunds gave back, so that it ends neither owed nor kept. Not a proof of
    # more for an order we hold (its refunds may be recorded by hand: refunds_prove_payment).
    refunded_in_full: bool = False
    # Whether a refund proves that what it gave back came in first: one that went back through
    # the payment that took the money does (Shopify's refund transactions, Saleor's transaction
    # events); a refund the shop may record by hand, with no gateway (WooCommerce's), does not.
    refunds_prove_payment: bool = True
    shipments: list[PlatformShipment] = field(default_factory=list)
    refunds: list[PlatformRefund] = field(default_factory=list)
    # The carrier's news of its parcels, where the platform's order carries it (WooCommerce's
    # TrackShip meta, Saleor's fulfillment metadata): applied after the parcels. News the reading
    # could not take (a time without a zone, say) is left out, each with its reason, and the rest
    # of the order is applied: a parcel's news is no reason to hold the order's other emails.
    parcel_news: list[PlatformParcelNews] = field(default_factory=list)
    parcel_news_left_out: list[str] = field(default_factory=list)
    # Why the order's edit could not be read, where the platform keeps the order as placed beside
    # its edits (Shopify: intake/shopify/edits.py): `content` is then the order as placed, and no
    # edit is applied from it; the rest of the order is.
    edit_left_out: str = ""
    content_refused: str = ""


def refunded_minor(refunds: list[PlatformRefund]) -> int:
    """What `refunds` gave back, each refund once by its id: a payload that lists one twice
    must not double what it proves came in (intake/platform_payments.py)."""
    return sum({refund.refund_id: refund.amount_minor for refund in reversed(refunds)}.values())
