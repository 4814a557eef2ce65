import hashlib
import json
import logging
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apiauth.models import ApiToken
from infra.insert_once import row_insert_unless_taken
from infra.keyed_hash import address_hash
from messaging.outbox import event_record
from observability.metrics import ORDERS_ACCEPTED
from orders.content import ShopOrder
from orders.currencies import amount_minor, money_check
from orders.events import ORDER_CREATED, ORDER_PAID
from orders.invoicing.issue import invoice_issue_at_placing
from orders.models import Order, OrderVersion, site_locale

logger = logging.getLogger(__name__)


class IdempotencyKeyReused(Exception):
    """The client sent the same Idempotency-Key with a different request body."""


@dataclass(frozen=True)
class OrderCreation:
    order: Order
    replayed: bool  # True when a retried request found the order it created before


class OrderNumberTaken(Exception):
    """The shop's order number names another order of this token, with other content."""


class OrderAlreadyPlaced(IntegrityError):
    """The order's Idempotency-Key or number (or a platform's id for it) is already an order's:
    nothing was written. Raised instead of letting the unique constraint refuse the INSERT,
    whose error PostgreSQL would log with the statement (infra/insert_once.py); an
    IntegrityError still, for the callers that answer a refusal as they did (a platform's
    delivery: 500, and its retry finds the order)."""


@transaction.atomic(durable=True)
def order_create(
    *,
    customer_email: str,
    amount: Decimal,
    currency: str,
    locale: str | None = None,
    api_token: ApiToken | None = None,
    idempotency_key: str | None = None,
    request_fingerprint: str = "",
    shop_order: ShopOrder | None = None,
) -> Order:
    """The order, what was bought (its first OrderVersion, for a shop's order) and its
    `order.created` event commit together, or nothing does. An amount or currency the order
    cannot be taken in is MoneyRefused (orders/currencies.py), whoever the caller."""
    return order_record(
        customer_email=customer_email,
        amount=amount,
        currency=currency,
        locale=locale,
        api_token=api_token,
        idempotency_key=idempotency_key,
        request_fingerprint=request_fingerprint,
        shop_order=shop_order,
    )


def order_record(
    *,
    customer_email: str,
    amount: Decimal,
    currency: str,
    locale: str | None = None,
    api_token: ApiToken | None = None,
    idempotency_key: str | None = None,
    request_fingerprint: str = "",
    shop_order: ShopOrder | None = None,
    paid: bool = False,
    paid_minor: int | None = None,
    **origin: Any,
) -> Order:
    """`order_create` in the caller's transaction, for an intake (a platform's delivery).
    `paid`: it arrives paid, recorded as if created then paid (its payment's event after its
    creation's) and its invoice if due; `paid_minor`: what that payment took when its platform
    proves less than the total (paid in part), else the total. `origin`: its connected shop and
    platform ids. OrderAlreadyPlaced, with nothing written, when its key or number is taken."""
    took = amount_minor(amount, currency) if paid_minor is None else paid_minor
    # One prepared statement (infra/insert_once.py): every order's transaction writes one.
    order = row_insert_unless_taken(
        Order(
            status=Order.Status.PAID if paid else Order.Status.CREATED,
            version=2 if paid else 1,  # as an order created, then paid: each change counts
            paid_at=timezone.now() if paid else None,
            paid_minor=took if paid else None,
            customer_email=customer_email,
            customer_email_hash=address_hash(customer_email),
            amount=money_check(amount=amount, currency=currency),
            currency=currency,
            locale=locale or site_locale(),
            api_token=api_token,
            idempotency_key=idempotency_key,
            request_fingerprint=request_fingerprint,
            **(shop_order.order_fields() if shop_order else {}),
            **origin,
        )
    )
    if order is None:
        raise OrderAlreadyPlaced("Another order holds this order's Idempotency-Key, number or platform id.")
    if shop_order is not None:
        content = shop_order.content
        OrderVersion.objects.create(order=order, number=1, content=content, total_minor=content["total"])
    event = event_record(event_type=ORDER_CREATED, aggregate_id=order.id)
    if paid:
        event_record(event_type=ORDER_PAID, aggregate_id=order.id)
    invoice_issue_at_placing(order, content=shop_order.content if shop_order else None, paid=paid)
    logger.info("order accepted", extra={"order_id": str(order.id), "event_id": str(event.id)})
    return order


def order_create_idempotent(
    *,
    customer_email: str,
    amount: Decimal,
    currency: str,
    api_token: ApiToken | None,
    idempotency_key: str | None,
    locale: str | None = None,
    shop_order: ShopOrder | None = None,
) -> OrderCreation:
    """Create an order; a retry with the same Idempotency-Key, or a shop's order sent again
    under its number, returns the first one (IdempotencyKeyReused or OrderNumberTaken when
    the body differs).

    The unique constraints decide between two concurrent retries, not a read before the
    write: the loser of the race gets the winner's order.
    """
    if shop_order is not None:
        fingerprint = content_fingerprint(shop_order.content)
    else:
        fingerprint = request_fingerprint(
            customer_email=customer_email, amount=amount, currency=currency, locale=locale
        )
    sent_before = partial(_order_sent_before, api_token=api_token, idempotency_key=idempotency_key)
    # A shop's number is looked up only when its INSERT finds it taken: a shop's first
    # sending, the usual case, then costs no read.
    if (existing := sent_before(shop_order=None)) is not None:
        return _replay(existing, fingerprint)
    try:
        order = order_create(
            customer_email=customer_email,
            amount=amount,
            currency=currency,
            locale=locale,
            api_token=api_token,
            idempotency_key=idempotency_key,
            request_fingerprint=fingerprint,
            shop_order=shop_order,
        )
    except OrderAlreadyPlaced:
        if (existing := sent_before(shop_order=shop_order)) is None:
            raise
        return _replay(existing, fingerprint)
    ORDERS_ACCEPTED.labels("false").inc()
    return OrderCreation(order=order, replayed=False)


def request_fingerprint(
    *, customer_email: str, amount: Decimal, currency: str, locale: str | None = None
) -> str:
    fields = {"customer_email": customer_email, "amount": str(amount), "currency": currency}
    if locale is not None:  # only when the client named one: older orders' fingerprints stay valid
        fields["locale"] = locale
    return _sha256_of(fields)


def content_fingerprint(content: dict) -> str:
    return _sha256_of(content)


def _sha256_of(document: dict) -> str:
    canonical = json.dumps(document, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class _SentBefore:
    order: Order
    found_by_number: bool  # not by the Idempotency-Key


def _order_sent_before(
    *, api_token: ApiToken | None, idempotency_key: str | None, shop_order: ShopOrder | None
) -> _SentBefore | None:
    """The order this request already created, found by its Idempotency-Key, else by the
    shop's order number."""
    if idempotency_key is not None:
        order = _order_for_key(api_token=api_token, idempotency_key=idempotency_key)
        if order is not None:
            return _SentBefore(order, found_by_number=False)
    if shop_order is not None:
        order = Order.objects.filter(api_token=api_token, number=shop_order.content["number"]).first()
        if order is not None:
            return _SentBefore(order, found_by_number=True)
    return None


def _order_for_key(*, api_token: ApiToken | None, idempotency_key: str) -> Order | None:
    return Order.objects.filter(api_token=api_token, idempotency_key=idempotency_key).first()


def _replay(sent_before: _SentBefore, fingerprint: str) -> OrderCreation:
    order = sent_before.order
    if order.request_fingerprint != fingerprint:
        if sent_before.found_by_number:
            raise OrderNumberTaken(
                f"Order number {order.number} was already placed with other content (order {order.id}). "
                "A new order needs a new number."
            )
        raise IdempotencyKeyReused(
            "This Idempotency-Key was already used for a different order. Use a new key for a new order."
        )
    ORDERS_ACCEPTED.labels("true").inc()
    return OrderCreation(order=order, replayed=True)
