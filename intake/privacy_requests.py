"""The shop platforms' erasure requests, carried out: Shopify's `customers/redact` (erase one
customer of the shop: its address, and the customers of the orders it names) and `shop/redact`
(the shop left the app: erase every customer of the shop), through the erasure of
privacy/erasure.py, scoped to the shop's orders.

The delivery is stored and answered as any other (nothing but storing happens in the request);
the hourly job (a step of RETENTION_STEPS) erases it afterwards, well within the platform's
30 days. An erasure an email in flight holds up waits for the next run; what is done is marked
on the delivery ("used", with the erasure's record). `customers/data_request` stays for a
person: its export is handed to the shop owner by someone who can check who asks.
"""

import json
import logging
from datetime import datetime
from typing import Any

from django.db import InterfaceError, OperationalError
from django.db.models import QuerySet
from django.utils import timezone

from intake.models import PlatformDelivery
from orders.models import Order
from privacy.erasure import AddressRefused, EmailsInFlight, customer_erase
from privacy.models import Erasure
from privacy.reach import Reach

logger = logging.getLogger(__name__)
ERASING_TOPICS = ("customers/redact", "shop/redact")
_SHOP_REDACT_ADDRESSES_PER_RUN = 500  # a large shop's customers over several runs
Outcome = PlatformDelivery.Outcome


def platform_erasure_requests_apply(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """Carry out the stored erasure requests, oldest first; how many customers were erased.
    Each on its own: one that fails is set aside for a person, and the others (any shop's) are
    still carried out, this run and every later one."""
    erased = 0
    pending = PlatformDelivery.objects.filter(topic__in=ERASING_TOPICS, outcome=Outcome.FOR_A_PERSON)
    for delivery in pending.select_related("shop").order_by("received_at")[:batch_size]:
        try:
            erased += _request_apply(delivery)
        except (OperationalError, InterfaceError):
            # The database, briefly (a lock, a lost connection): not the request's fault.
            logger.exception("erasure request %s left for the next run", delivery.event_key)
        except Exception as exc:
            logger.exception("erasure request %s failed: set aside for a person", delivery.event_key)
            _set_aside(delivery, exc)
    return erased


def _set_aside(delivery: PlatformDelivery, exc: Exception) -> None:
    """Kept among the deliveries we could not use: a person runs it again once the cause is
    fixed (it is then carried out by the next run)."""
    PlatformDelivery.objects.filter(pk=delivery.pk).update(
        outcome=Outcome.COULD_NOT_USE,
        reason=f"The erasure it asks for failed ({type(exc).__name__}: {exc}); what it erased before "
        "the failure stays erased. Run it again once the cause is fixed.",
        applied_at=timezone.now(),
    )


def _request_apply(delivery: PlatformDelivery) -> int:
    """Erase what the request names; mark it used once all of it is done."""
    payload = _payload(delivery.body)
    reach = _reach_of(delivery, payload)
    addresses = _addresses_to_erase(delivery, payload, reach)
    shop = delivery.shop
    asked_by = f"{shop.get_platform_display()} {shop.slug} ({delivery.topic})"
    erasures: list[Erasure] = []
    handled = 0
    for address in addresses[:_SHOP_REDACT_ADDRESSES_PER_RUN]:
        try:
            erasure = customer_erase(
                address=address, via=Erasure.Via.PLATFORM, actor=None, actor_name=asked_by, reach=reach
            )
        except EmailsInFlight:
            break  # this customer's turn comes on the next run
        except AddressRefused:
            handled += 1  # a stored address that is not one: nothing to find by it
            continue
        erasures.append(erasure)
        handled += 1
    if handled == len(addresses):
        records = ", ".join(str(erasure.pk) for erasure in erasures) or "none needed"
        PlatformDelivery.objects.filter(pk=delivery.pk).update(
            outcome=Outcome.USED,
            reason=f"Erased at the platform's request: {len(erasures)} customer(s), records {records}.",
            applied_at=timezone.now(),
        )
    return len(erasures)


def _reach_of(delivery: PlatformDelivery, payload: dict[str, Any]) -> Reach:
    """The shop's orders placed up to when the request was received, and those it names: a
    customer's order placed after it is not the request's (the customer has not asked about it),
    and a request posted again later reaches no more than it did."""
    named = payload.get("orders_to_redact") if delivery.topic == "customers/redact" else None
    return Reach(
        shop=delivery.shop,
        received_at=delivery.received_at,
        orders_named=frozenset(str(order_id) for order_id in named or []),
    )


def _addresses_to_erase(delivery: PlatformDelivery, payload: dict[str, Any], reach: Reach) -> list[str]:
    """The customer's address and those of the orders the request names; for a shop's
    redaction, every customer of the shop's orders it reaches not erased yet."""
    shop_orders: QuerySet[Order] = reach.within(Order.objects.filter(erased_at__isnull=True))
    if delivery.topic == "shop/redact":
        return sorted(set(shop_orders.values_list("customer_email", flat=True)))
    customer = payload.get("customer")
    if not isinstance(customer, dict):
        customer = {}
    addresses = {str(customer.get("email") or "")} | set(
        shop_orders.filter(platform_order_id__in=reach.orders_named).values_list("customer_email", flat=True)
    )
    return sorted(address for address in addresses if address)


def _payload(body: str) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) else {}
