"""Applying a platform's delivery to our orders, in the caller's transaction: the order's
creation, payment, parcels, refunds and cancellation through the orders' own services, each
with its event, so every email of the order follows with the guarantees of an order placed
through the API.

An order's deliveries are applied one at a time (a transaction-level advisory lock on the shop
and the platform's order id), so two deliveries of a new order cannot both create it and a
parcel cannot race its order's creation."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection

from intake.platform_edits import platform_edit_apply
from intake.platform_payments import paid_catch_up, payment_in_words, received_toward
from intake.platform_refunds import refund_apply
from intake.same_time import future_time_refuse, same_time_changes_left_out
from intake.shapes import (
    OrderNotYetReceived,
    ParcelNotYetReceived,
    PlatformOrder,
    PlatformParcelNews,
    PlatformShipment,
    Unusable,
)
from notifications.address_change import order_address_change
from notifications.audit import action_done
from notifications.models import OperatorAction
from orders.changes import OrderChangeConflict, order_change_apply
from orders.content import ShopOrder
from orders.currencies import MoneyRefused, amount_minor
from orders.models import Order, Shipment, ShipmentEvent
from orders.parcel_progress import ParcelNews, ParcelNewsRefused, parcel_news_record
from orders.refunds import RefundRefused
from orders.services import order_record
from orders.shipments import ShipmentRefused, shipment_record, tracking_url_problem
from shops.models import Shop


@dataclass(frozen=True)
class Applied:
    order: Order | None
    changes: list[str]  # what happened, in words ("order created", "shipment 42 recorded")
    stale: bool = False


def order_lock_for_platform(shop: Shop, platform_order_id: str) -> Order | None:
    """Serialises the deliveries of one platform order, then reads it (locked) if we have it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"intake:{shop.id}:{platform_order_id}"]
        )
    return (
        Order.objects.select_for_update(no_key=True, of=("self",))
        .filter(shop=shop, platform_order_id=platform_order_id)
        .first()
    )


def order_snapshot_apply(shop: Shop, snapshot: PlatformOrder) -> Applied:
    """The order as the platform has it now: created if new, then brought up to it (paid,
    each parcel and refund we lack, cancelled). A snapshot older than the newest applied
    changes nothing; one with its time changes the lines and the address only when it says
    what the order holds (intake/same_time.py). One stamped past our clock is refused."""
    future_time_refuse(snapshot)
    order = order_lock_for_platform(shop, snapshot.platform_order_id)
    changes: list[str] = []
    if order is None:
        order, paid = _order_create(shop, snapshot)
        changes.extend(["order created", *paid])
    elif order.platform_updated_at is not None and snapshot.updated_at < order.platform_updated_at:
        return Applied(order=order, changes=[], stale=True)
    else:
        left_out = same_time_changes_left_out(order, snapshot)
        changes.extend(left_out or _address_and_lines_apply(shop, order, snapshot))
    changes.extend([snapshot.edit_left_out] if snapshot.edit_left_out else [])
    changes.extend(_paid_apply(order, snapshot))
    for shipment in snapshot.shipments:
        changes.extend(shipment_apply(order, shipment))
    changes.extend(_snapshot_news_apply(order, snapshot))
    if snapshot.cancelled and order.status != Order.Status.CANCELLED:
        # The refunds the platform made with the cancellation are told in its email.
        def refunds_with_it(locked: Order, cancelled_now: bool) -> None:
            for refund in snapshot.refunds:
                changes.extend(refund_apply(locked, refund, in_cancellation=cancelled_now))

        _refusals_as_unusable(lambda: order_change_apply(order, change="cancel", also=refunds_with_it))
        changes.append("cancelled")
    else:
        for refund in snapshot.refunds:
            changes.extend(refund_apply(order, refund))
    if order.platform_updated_at is None or snapshot.updated_at > order.platform_updated_at:
        order.platform_updated_at = snapshot.updated_at
        order.save(update_fields=["platform_updated_at"])
    return Applied(order=order, changes=changes)


def _address_and_lines_apply(shop: Shop, order: Order, snapshot: PlatformOrder) -> list[str]:
    """The platform's address and lines now, before its payment and its cancellation."""
    return _address_apply(shop, order, snapshot.customer_email) + platform_edit_apply(order, snapshot)


def _order_create(shop: Shop, snapshot: PlatformOrder) -> tuple[Order, list[str]]:
    """The order as its platform has it now, paid as much as its payload proves
    (intake/platform_payments.py); and its payment in words."""
    if snapshot.content is None:
        raise Unusable(snapshot.content_refused)
    shop_order, currency = ShopOrder(snapshot.content), snapshot.content["currency"]
    total = snapshot.content["total"]
    received = received_toward(snapshot, total)
    order = _refusals_as_unusable(
        lambda: order_record(
            customer_email=snapshot.customer_email,
            amount=shop_order.amount,
            currency=currency,
            locale=snapshot.locale,
            shop_order=shop_order,
            shop=shop,
            paid=received > 0,
            paid_minor=received,
            platform_order_id=snapshot.platform_order_id,
            platform_updated_at=snapshot.updated_at,
            platform_customer_email=snapshot.customer_email,
        )
    )
    return order, payment_in_words(snapshot, received, total, currency)


def _paid_apply(order: Order, snapshot: PlatformOrder) -> list[str]:
    if order.status != Order.Status.CREATED:
        if snapshot.paid:
            paid_catch_up(order, snapshot)
        return []
    total = amount_minor(order.amount, order.currency)
    received = received_toward(snapshot, total)
    if received > 0:
        _refusals_as_unusable(lambda: order_change_apply(order, change="pay", paid_minor=received))
    return payment_in_words(snapshot, received, total, order.currency)


def _address_apply(shop: Shop, order: Order, address: str) -> list[str]:
    """The shop corrected the customer's address on its platform: the emails to come go to the
    new one, as after a reviewer's correction, and the change is recorded. Only a change of what
    the platform sends counts: a reviewer who corrected the order's address keeps it while every
    delivery still carries the platform's old one. An erased order keeps its blank address."""
    before = order.platform_customer_email
    if not address or order.erased_at is not None or address.lower() == before.lower():
        return []
    order.platform_customer_email = address
    order.save(update_fields=["platform_customer_email"])
    if not before or address.lower() == order.customer_email.lower():
        return []  # first seen (an order of an older release), or already the order's
    record = action_done(
        action=OperatorAction.Action.PLATFORM_ADDRESS,
        actor=None,
        actor_name=f"{shop.get_platform_display()} {shop.slug}",
        comment=f"order {order.number or order.id}",
        result="the order's emails from now on go to the address the platform sent",
    )
    order_address_change(order=order, address=address, record=record)
    return ["address changed by the platform"]


def shipment_apply(order: Order, shipment: PlatformShipment) -> list[str]:
    """A tracking link that the API would refuse (tracking_url_problem) is left out, and the
    change says why: the parcel is the platform's fact and its customer still hears of it, by
    carrier and tracking number, but the email's button never leads where the API forbids."""
    if Shipment.objects.filter(order=order, shop_shipment_id=shipment.shipment_id).exists():
        return []
    problem = tracking_url_problem(shipment.tracking_url) if shipment.tracking_url else ""
    _refusals_as_unusable(
        lambda: shipment_record(
            order,
            shop_shipment_id=shipment.shipment_id,
            carrier=shipment.carrier,
            tracking_number=shipment.tracking_number,
            tracking_url="" if problem else shipment.tracking_url,
            lines=shipment.lines,
        )
    )
    recorded = f"shipment {shipment.shipment_id} recorded"
    return [f"{recorded} without its tracking link: {problem}" if problem else recorded]


def parcel_news_apply(order: Order, news: PlatformParcelNews) -> list[str]:
    """A carrier's news of a parcel of the order; ParcelNotYetReceived while the parcel has not
    been recorded (its fulfilment's delivery may come after its first news)."""
    shipment = Shipment.objects.filter(order=order, shop_shipment_id=news.shipment_id).first()
    if shipment is None:
        raise ParcelNotYetReceived(
            f"Parcel {news.shipment_id} of this order has not been received yet: this news is applied "
            "when a delivery records it."
        )
    if ShipmentEvent.objects.filter(shipment=shipment, shop_event_id=news.event_id).exists():
        return []
    if news.current_state and shipment.progress == news.status:
        return []
    recording = _refusals_as_unusable(
        lambda: parcel_news_record(
            order,
            shipment,
            ParcelNews(news.event_id, news.status, news.happened_at, news.message),
        )
    )
    event = recording.event
    did = f"email {event.email_event}" if event.email_event else event.note
    return [f"parcel {news.shipment_id}: {event.get_status_display()} recorded ({did})"]


def _snapshot_news_apply(order: Order, snapshot: PlatformOrder) -> list[str]:
    """The parcels' news an order's delivery carries, after its parcels. News of a parcel no
    delivery recorded (WooCommerce's order before it was completed), or of an erased order, is
    left out with the reason: never a wait, which would hold the whole order's delivery; the
    next delivery of the order carries it again."""
    changes = list(snapshot.parcel_news_left_out)
    for news in snapshot.parcel_news:
        if order.erased_at is not None:
            changes.append(f"parcel {news.shipment_id}: its news left out: the order was erased")
            continue
        try:
            changes.extend(parcel_news_apply(order, news))
        except ParcelNotYetReceived:
            changes.append(f"parcel {news.shipment_id}: its news left out: no delivery recorded the parcel")
    return changes


def order_of_delivery(shop: Shop, platform_order_id: str) -> Order:
    """The order a parcel's or refund's delivery is about, locked; OrderNotYetReceived when it
    has not arrived."""
    if not platform_order_id:
        raise Unusable("The delivery names no order (order_id).")
    order = order_lock_for_platform(shop, platform_order_id)
    if order is None:
        raise OrderNotYetReceived(
            f"Order {platform_order_id} has not been received yet: this delivery is applied when it arrives."
        )
    return order


def _refusals_as_unusable(call: Callable[[], Any]) -> Any:
    """The orders' services refuse what does not fit the order (a parcel of more than was
    ordered, a refund beyond what was paid): for a platform's delivery that is a reason to
    show a person, not an error to answer."""
    try:
        return call()
    except (ShipmentRefused, RefundRefused, OrderChangeConflict, MoneyRefused, ParcelNewsRefused) as exc:
        raise Unusable(str(exc)) from exc
