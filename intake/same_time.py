"""Two deliveries of one order with the same time, the platform's time of the state each
carries (Shopify's `updated_at` and WooCommerce's `date_modified_gmt` have whole seconds,
Saleor's `updatedAt` microseconds): which of the two is the newer state cannot be told. No
platform signs a finer clock: Shopify's X-Shopify-Triggered-At is a header, which anyone can set
on a body captured before, and what a delivery does is its body's alone. Nor does this service
ask a platform back.

What the second adds is applied all the same: a payment, a parcel and its news, a refund, a
cancellation are facts the newer state holds too, whichever it is. What it may change back, the
order's lines and its customer's address, is applied only when it says what the order holds (it
then changes nothing): otherwise it could take the order back to the older state, and tell its
customer of a change that undoes the one just told. It is left out, and the delivery's reason
says so, where the admin's list of deliveries shows it; the platform's next change of the order,
at a later time, brings the order to what the platform holds then.

A delivery whose time is past our clock by more than FUTURE_SLACK is refused: kept as the
order's newest, it would make every later delivery of the order older than it (stale) until the
platform's clock reached it, and the order would take none of their changes."""

from datetime import UTC, timedelta

from django.utils import timezone

from intake.platform_edits import LEFT_OUT, platform_edit_differs
from intake.shapes import PlatformOrder, Unusable
from orders.models import Order

# How far ahead of our clock a platform's time of an order's state may be (clocks differ a
# little), as for a parcel's news (orders/parcel_progress.py FUTURE_SLACK).
FUTURE_SLACK = timedelta(hours=1)


def future_time_refuse(snapshot: PlatformOrder) -> None:
    """Raises Unusable when the snapshot's time is past our clock by more than FUTURE_SLACK, or
    is before any time the database gives back: year 1 east of UTC is kept as a time BC, and
    the order's row could never be read again, by this delivery's next step or any later one."""
    if snapshot.updated_at > timezone.now() + FUTURE_SLACK:
        raise Unusable(
            f"The order's time ({snapshot.updated_at.isoformat()}) is after our clock: taken as its "
            "newest state, it would make every later change of the order stale. Nothing of it was applied."
        )
    try:
        snapshot.updated_at.astimezone(UTC)
    except OverflowError as exc:
        raise Unusable(
            f"The order's time ({snapshot.updated_at.isoformat()}) is outside the times this service can "
            "keep. Nothing of it was applied."
        ) from exc


def same_time_changes_left_out(order: Order, snapshot: PlatformOrder) -> list[str]:
    """Why the snapshot's lines and address are left out, one reason for each that differs from
    what the order holds, when the newest state applied to the order has the snapshot's time;
    [] otherwise (the snapshot is then applied as any newer one is)."""
    if order.platform_updated_at is None or snapshot.updated_at != order.platform_updated_at:
        return []
    why = (
        f"a delivery of the order with the same time ({snapshot.updated_at.isoformat()}) was applied "
        "before it, and which of the two is newer cannot be told. The order keeps what it holds "
        "until its platform changes the order again."
    )
    left_out = [f"{LEFT_OUT}: {why}"] if platform_edit_differs(order, snapshot) else []
    if _address_differs(order, snapshot.customer_email):
        left_out.append(f"the platform's change of the customer's address was not applied: {why}")
    return left_out


def _address_differs(order: Order, address: str) -> bool:
    """The platform sends another address than the one it sent before (what intake/apply.py's
    `_address_apply` takes as the shop's correction)."""
    before = order.platform_customer_email
    return bool(address and before and order.erased_at is None and address.lower() != before.lower())
