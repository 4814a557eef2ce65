import hashlib
import json
import logging
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction

from apiauth.models import ApiToken
from messaging.outbox import event_record
from observability.metrics import ORDERS_ACCEPTED
from orders.currencies import money_check
from orders.events import ORDER_CREATED
from orders.models import Order, site_locale

logger = logging.getLogger(__name__)


class IdempotencyKeyReused(Exception):
    """The client sent the same Idempotency-Key with a different request body."""


@dataclass(frozen=True)
class OrderCreation:
    order: Order
    replayed: bool  # True when a retried request found the order it created before


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
) -> Order:
    """The order and its `order.created` event commit together, or neither does. An amount
    or currency the order cannot be taken in is MoneyRefused (orders/currencies.py), whoever
    the caller."""
    order = Order.objects.create(
        customer_email=customer_email,
        amount=money_check(amount=amount, currency=currency),
        currency=currency,
        locale=locale or site_locale(),
        api_token=api_token,
        idempotency_key=idempotency_key,
        request_fingerprint=request_fingerprint,
    )
    event = event_record(event_type=ORDER_CREATED, aggregate_id=order.id)
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
) -> OrderCreation:
    """Create an order; a retry with the same Idempotency-Key returns the first one.

    The unique constraint decides between two concurrent retries, not a read before the
    write: the loser of the race gets the winner's order.
    """
    fingerprint = request_fingerprint(
        customer_email=customer_email, amount=amount, currency=currency, locale=locale
    )
    if idempotency_key is not None:
        existing = _order_for_key(api_token=api_token, idempotency_key=idempotency_key)
        if existing is not None:
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
        )
    except IntegrityError:
        if idempotency_key is None:
            raise
        existing = _order_for_key(api_token=api_token, idempotency_key=idempotency_key)
        if existing is None:
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
    canonical = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _order_for_key(*, api_token: ApiToken | None, idempotency_key: str) -> Order | None:
    return Order.objects.filter(api_token=api_token, idempotency_key=idempotency_key).first()


def _replay(order: Order, fingerprint: str) -> OrderCreation:
    if order.request_fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "This Idempotency-Key was already used for a different order. Use a new key for a new order."
        )
    ORDERS_ACCEPTED.labels("true").inc()
    return OrderCreation(order=order, replayed=True)
