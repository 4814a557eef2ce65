"""Order state changes after creation: pay and cancel. Each writes its event in the same
transaction, and bumps the order's version so a client can refuse to act on a stale view.

Every change names the API token it acts for (`api_token`, required): an order is changed only
by a token of the client that placed it (the same token, or its successor after a rotation),
and another client's order is "not found", exactly as an id that does not exist, so a client
cannot even learn that it exists. `api_token=None` reaches only the orders placed without a
token (by the product's own tools and tests)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from apiauth.models import ApiToken
from infra.keyed_hash import address_hash
from messaging.outbox import event_record
from orders.currencies import amount_minor
from orders.events import ORDER_CANCELLED, ORDER_PAID
from orders.invoicing.issue import credit_note_for_cancellation, invoice_issue_at_payment
from orders.models import Order


class OrderNotFound(Exception):
    pass


class OrderChangeConflict(Exception):
    """The change does not fit the order's current state or version; nothing was changed.
    `code` says why in a word the client can branch on."""

    def __init__(self, message: str, *, code: str = "conflict"):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class OrderChange:
    order: Order
    changed: bool  # False when the order already was in the target state (a retried request)


# From which states each change may happen, and what it leads to.
_TRANSITIONS: dict[str, tuple[set[str], str, str]] = {
    "pay": ({Order.Status.CREATED}, Order.Status.PAID, ORDER_PAID),
    "cancel": ({Order.Status.CREATED, Order.Status.PAID}, Order.Status.CANCELLED, ORDER_CANCELLED),
}


def order_pay(
    *, order_id: UUID, api_token: ApiToken | None, expected_version: int | None = None
) -> OrderChange:
    return _order_change(
        order_id=order_id, api_token=api_token, change="pay", expected_version=expected_version
    )


def order_cancel(
    *,
    order_id: UUID,
    api_token: ApiToken | None,
    expected_version: int | None = None,
    also: Callable[[Order, bool], None] | None = None,
) -> OrderChange:
    """`also(order, changed)` runs in the cancellation's transaction, under the order's lock
    (a refund announced with it, orders/refunds.py)."""
    return _order_change(
        order_id=order_id, api_token=api_token, change="cancel", expected_version=expected_version, also=also
    )


def order_lock(*, order_id: UUID, api_token: ApiToken | None) -> Order:
    """The order, locked for a change in the caller's transaction; OrderNotFound for an id
    that does not exist and for another client's order alike. One statement for both
    conditions: another token's order is neither locked nor read, so it costs what a missing
    id costs. Only the order's row is locked (`of`), not the token's the client test joins."""
    order = (
        Order.objects.placed_by_client_of(api_token)
        .select_for_update(no_key=True, of=("self",))
        .filter(id=order_id)
        .first()
    )
    if order is None:
        raise OrderNotFound(order_not_found_message(order_id))
    return order


def order_paid_at(order: Order) -> datetime | None:
    """When the order was paid; None if it never was. An order paid by a process of the
    previous release during a rolling deploy is paid without `paid_at`: its last change is the
    best time known (as migration 0013 fills it in)."""
    if order.paid_at is None and order.status == Order.Status.PAID:
        return order.updated_at
    return order.paid_at


def order_paid_minor(order: Order) -> int:
    """What the order's payment took, in minor units; 0 for an order never paid. An order paid
    before this was kept (or by a process of the previous release) took its total."""
    if order_paid_at(order) is None:
        return 0
    if order.paid_minor is not None:
        return order.paid_minor
    return amount_minor(order.amount, order.currency)


def order_not_found_message(order_id: UUID) -> str:
    """The one wording of "not found", for an id that does not exist and for another
    token's order alike."""
    return f"No order has the id {order_id}."


@transaction.atomic(durable=True)
def _order_change(
    *,
    order_id: UUID,
    api_token: ApiToken | None,
    change: str,
    expected_version: int | None,
    also: Callable[[Order, bool], None] | None = None,
) -> OrderChange:
    order = order_lock(order_id=order_id, api_token=api_token)
    return order_change_apply(order, change=change, expected_version=expected_version, also=also)


def order_change_apply(
    order: Order,
    *,
    change: str,
    expected_version: int | None = None,
    also: Callable[[Order, bool], None] | None = None,
    paid_minor: int | None = None,
) -> OrderChange:
    """A change ("pay" or "cancel") of an order the caller holds locked (order_lock), in the
    caller's transaction: for an intake that records what it received with the change.
    `paid_minor`: what a payment took when its platform proves less than the total (paid in
    part); the total otherwise."""
    allowed_from, target, event_type = _TRANSITIONS[change]
    if order.status == target:
        if also is not None:
            also(order, False)
        return OrderChange(order=order, changed=False)  # a retry of a change that happened
    if expected_version is not None and expected_version != order.version:
        raise OrderChangeConflict(
            f"The order is at version {order.version}, not {expected_version}: it changed meanwhile. "
            "Read it again before deciding."
        )
    if order.status not in allowed_from:
        raise OrderChangeConflict(f"A {order.status} order cannot be {target}.")
    # Paid once, at its payment, with what it took; a cancellation keeps both (a refund may
    # still follow).
    paid_now = order_paid_at(order) is None and target == Order.Status.PAID
    order.paid_at = order_paid_at(order) or (timezone.now() if paid_now else None)
    if paid_now:
        order.paid_minor = amount_minor(order.amount, order.currency) if paid_minor is None else paid_minor
    order.status = target
    order.version += 1
    order.save(update_fields=["status", "version", "paid_at", "paid_minor", "updated_at"])
    if paid_now:
        invoice_issue_at_payment(order)
    if target == Order.Status.CANCELLED:
        # Before the refunds told with it: what never came in is credited by itself.
        credit_note_for_cancellation(order, paid_minor=order_paid_minor(order))
    if also is not None:
        also(order, True)
    event_record(event_type=event_type, aggregate_id=order.id)
    return OrderChange(order=order, changed=True)


def order_address_correct(*, order: Order, address: str) -> str:
    """Change the customer's address of an order the caller holds locked (a reviewer's
    correction of a mistyped one, audited by the caller); returns the previous address."""
    previous = order.customer_email
    order.customer_email = address
    order.customer_email_hash = address_hash(address)
    order.version += 1
    order.save(update_fields=["customer_email", "customer_email_hash", "version", "updated_at"])
    return previous
