"""A customer's erasure, on what the shops' platforms sent about them: each delivery's body
(the platform's whole order: addresses, names, lines) of the customer's orders is blanked; any
other delivery that quotes the address (a platform's privacy request, one waiting for an order
that has not arrived) keeps its body with the address replaced, so that it can still be applied.
A name never makes a delivery the customer's: "EUR" or "Paid" is a word of every order. What
stays: which delivery came, when, for which platform order, and what it did, so the intake's
history still shows each event stored once. Called by the erasure and the export through
PERSONAL_DATA_ERASURE_STEPS and PERSONAL_DATA_EXPORT_STEPS (privacy/erasure.py,
privacy/export.py)."""

import json
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q

from infra.batched_update import update_in_batches
from infra.json_nesting import json_nesting_refusal
from infra.storable_text import storable_json
from infra.text_scrub import text_quotes, text_scrubbed
from intake.models import PlatformDelivery
from orders.models import Order
from orders.personal_data import orders_erase
from privacy.reach import Reach


def deliveries_erase(
    *, order_ids: list, address: str, words: list[str], elsewhere: list[str], now: datetime, reach: Reach
) -> dict[str, int]:
    """`words`: what the customer's own deliveries' reasons may quote them by; `elsewhere`: what
    is replaced in any other delivery it reaches (their address; nothing for an erasure scoped
    to one API client, whose orders come from no platform). A shop's request reaches that
    shop's deliveries alone, those received up to the request: another shop's quoting the same
    address stay as they came (one it could not use can still be run again), and so do later
    ones (a new order's)."""
    mine = _of_orders(order_ids)
    theirs = PlatformDelivery.objects.filter(mine).filter(~Q(body="") | text_quotes("reason", words))
    changed = theirs.update(body="", reason=text_scrubbed("reason", words))
    others = PlatformDelivery.objects.exclude(mine)
    if reach.shop is not None:
        others = others.filter(shop=reach.shop)
    if reach.received_at is not None:  # the request itself, and what came before it
        others = others.filter(received_at__lte=reach.received_at)
    quoting = others.filter(text_quotes("body", elsewhere) | text_quotes("reason", elsewhere))
    changed += quoting.update(
        body=text_scrubbed("body", elsewhere), reason=text_scrubbed("reason", elsewhere)
    )
    return {"platform_deliveries": changed}


def delivery_of_erased_order_erase(delivery: PlatformDelivery, order: Order | None) -> None:
    """A delivery about an order whose customer had their data erased (a late orders/updated,
    a parcel, a refund), applied to it or refused: the address and what else it carries are
    not kept again. Its body goes as the erasure took the order's other deliveries', and what
    applying it wrote of the person (a parcel's tracking, a refund's reason) as the erasure took
    the rest; what it did to the order (paid, cancelled, the amounts) stays for the shop's books."""
    if (
        order is None
        and delivery.outcome == PlatformDelivery.Outcome.COULD_NOT_USE
        and delivery.platform_order_id
    ):
        # Refused (its changes undone): it names its order, which the result does not carry.
        order = Order.objects.filter(
            shop_id=delivery.shop_id, platform_order_id=delivery.platform_order_id
        ).first()
    if order is None or order.erased_at is None:
        return
    orders_erase([order.pk], now=order.erased_at)
    PlatformDelivery.objects.filter(pk=delivery.pk).update(body="")
    delivery.body = ""


def delivery_bodies_expire(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """A step of the hourly retention job: a delivery's body (the platform's whole order, with
    the customer's address, name, IP address and lines) kept PLATFORM_DELIVERY_BODY_RETENTION_DAYS
    after it came: long past the platforms' retries (hours) and a person's re-run of one that
    could not be used; what it did stays."""
    cutoff = now - timedelta(days=settings.PLATFORM_DELIVERY_BODY_RETENTION_DAYS)
    return update_in_batches(
        PlatformDelivery.objects.filter(received_at__lt=cutoff).exclude(body=""),
        batch_size=min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE),
        max_batches=max_batches,
        pace=settings.PERSONAL_DATA_RETENTION_PACE,
        body="",
    )


def deliveries_export(*, order_ids: list, address: str, elsewhere: list[str]) -> dict[str, Any]:
    """What the shops' platforms sent about the customer, each delivery's body as it came: the
    deliveries of their orders, and (`elsewhere`: the address) any other that quotes it."""
    deliveries = PlatformDelivery.objects.filter(_of_orders(order_ids) | text_quotes("body", elsewhere))
    return {
        "what the shops' platforms sent": [
            {
                "shop": delivery.shop.name,
                "platform": delivery.shop.get_platform_display(),
                "what": delivery.topic,
                "received at": delivery.received_at.isoformat(),
                "as sent": _parsed(delivery.body),
            }
            for delivery in deliveries.select_related("shop").order_by("received_at")
        ]
    }


def _of_orders(order_ids: list) -> Q:
    """The deliveries of these orders: those applied to one, and those that name one and could
    not be used (they carry the same body)."""
    named = Q(pk__in=[])
    platform_orders = Order.objects.filter(id__in=order_ids, shop__isnull=False).values_list(
        "shop_id", "platform_order_id"
    )
    for shop_id, platform_order_id in platform_orders:
        named |= Q(shop_id=shop_id, platform_order_id=platform_order_id)
    return Q(order_id__in=order_ids) | named


def _parsed(body: str) -> Any:
    """The body parsed, to be read in the export; as its text when it cannot be: not JSON, or
    nested deeper than any delivery is (a delivery kept as "could not use" keeps such a body,
    and parsing it would fail the export with RecursionError). A lone surrogate escape in it
    ("\\ud800", no character: the export could not be written as UTF-8) or a NUL is replaced by
    U+FFFD (infra/storable_text.py)."""
    if not body or json_nesting_refusal(body) is not None:
        return body or None
    try:
        return storable_json(json.loads(body))
    except ValueError:
        return body
