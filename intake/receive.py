"""A platform's delivery, received: stored once, applied, answered. Everything happens in one
transaction (the delivery's row, the order, its events), so the platform's 2xx means all of it
committed, and a failure commits none of it and leaves the platform to retry.

A verified delivery is never answered 500 for what it holds: a platform that gets errors stops
sending (WooCommerce disables the webhook after five, Shopify removes the subscription after its
retries), and every later order's emails would be lost. What the readers refuse is Unusable;
what gets past them and fails (`_PAYLOAD_ERRORS`) is kept as "could not use" too, with its
traceback logged, for a person to re-run after a fix.

The delivery's row is written first with ON CONFLICT DO NOTHING on (shop, event key): a second
copy of the same event, even a concurrent one, waits for the first to commit and then finds it,
and changes nothing. The hot statements (that insert, the look for deliveries waiting for a new
order) are prepared ones of their own: the ORM's compilation was a third of a delivery's CPU."""

import logging
import uuid
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import DataError, transaction
from django.utils import timezone

from infra.insert_once import insert_unless_present
from infra.prepared import prepared_cursor
from infra.storable_text import storable
from intake.models import PlatformDelivery
from intake.personal_data import delivery_of_erased_order_erase
from intake.platforms import platform_of
from intake.shapes import OrderNotYetReceived, Unusable
from intake.topics import TopicResult, platform_order_id_of, topic_apply
from notifications.audit import action_done
from notifications.models import OperatorAction
from shops.models import Shop

logger = logging.getLogger(__name__)
Outcome = PlatformDelivery.Outcome

# What applying a verified delivery raises when its payload holds what the readers did not
# foresee: a value the database refuses (DataError: too long, NUL, out of range) or one Python
# cannot read as expected (ValueError with UnicodeError, TypeError, LookupError for KeyError and
# IndexError, AttributeError, ArithmeticError for OverflowError and decimal's signals). The same
# body raises it again at every retry, so it is kept for a person instead. Every other error
# passes and is answered 500: a lost connection, a deadlock, a serialisation failure or a lock
# timeout (OperationalError), or an IntegrityError (a concurrent delivery's row), are gone when
# the platform sends the delivery again.
_PAYLOAD_ERRORS = (DataError, ValueError, TypeError, LookupError, AttributeError, ArithmeticError)


@dataclass(frozen=True)
class Received:
    delivery: PlatformDelivery
    duplicate: bool  # this event was received before: nothing was done


@transaction.atomic(durable=True)
def delivery_receive(*, shop: Shop, event_key: str, webhook_id: str, topic: str, body: str) -> Received:
    # A NUL byte (JSON writes it as the escape \u0000, so a body holding one is no JSON) is kept
    # as U+FFFD: the text column refuses it, and the row must be written to keep the delivery.
    body = storable(body)
    delivery = PlatformDelivery(
        id=uuid.uuid4(),
        shop=shop,
        event_key=event_key,
        webhook_id=webhook_id,
        topic=topic,
        platform_order_id=platform_order_id_of(shop, topic, body),
        body=body,
        outcome=Outcome.COULD_NOT_USE,  # until applied, below, in this transaction
    )
    if not insert_unless_present(delivery, unique_on=("shop", "event_key")):
        first = PlatformDelivery.objects.select_for_update().filter(shop=shop, event_key=event_key).first()
        if first is None or not _applies_again(first, shop, topic):
            return Received(delivery=first or delivery, duplicate=True)
        # Received now, as what it is now: a request reaches the orders placed before it came,
        # and the order it names is read as this topic names it (a parcel's, an order's own id).
        first.shop, first.topic, first.runs, first.received_at = shop, topic, first.runs + 1, timezone.now()
        first.platform_order_id = delivery.platform_order_id
        PlatformDelivery.objects.filter(pk=first.pk).update(
            topic=topic, received_at=first.received_at, platform_order_id=first.platform_order_id
        )
        delivery = first
    delivery_apply(delivery)
    return Received(delivery=delivery, duplicate=False)


def _applies_again(first: PlatformDelivery, shop: Shop, topic: str) -> bool:
    """Whether these bytes, received before as `first`, are applied again under `topic`: a
    delivery is stored once by its body, but two things a body said depend on the moment.
    - It came first under a topic we do not use (a shop may subscribe one that carries the whole
      order, Shopify's orders/fulfilled): under one we do, it is applied.
    - It is a privacy request kept as could not use: refused by its body, it is refused again;
      held up by a doubt of the moment (Shopify's shop/redact while the shop was still sending),
      it is checked again. Otherwise a copy kept while the shop was active would make the
      genuine request, byte for byte the same, a duplicate, and nothing would be erased."""
    reading = platform_of(shop).reading
    if first.outcome == Outcome.TOPIC_UNUSED:
        return topic in reading.topics
    return first.outcome == Outcome.COULD_NOT_USE and topic == first.topic and topic in reading.privacy_topics


@transaction.atomic(durable=True)
def delivery_rerun(delivery_id: uuid.UUID, *, actor: User | None, actor_name: str) -> PlatformDelivery | None:
    """Apply a delivery again, after a fix (of the shop's data, or of this service): only one
    that could not be used or is waiting; None for any other (it was applied meanwhile). The
    person who asked is recorded (OperatorAction) with what came of it, in the same transaction."""
    delivery = (
        PlatformDelivery.objects.select_for_update()
        .select_related("shop")
        .filter(id=delivery_id, outcome__in=[Outcome.COULD_NOT_USE, Outcome.WAITING])
        .first()
    )
    if delivery is None:
        return None
    delivery.runs += 1
    delivery_apply(delivery)
    action_done(
        action=OperatorAction.Action.RERUN_DELIVERY,
        actor=actor,
        actor_name=actor_name,
        comment=f"{delivery.shop.slug} {delivery.topic} {delivery.event_key}",
        result=delivery.outcome,
    )
    return delivery


def delivery_apply(delivery: PlatformDelivery, *, then_waiting: bool = True) -> None:
    """In the caller's transaction. What it could not use is undone (a savepoint) and kept with
    its reason; what it could is recorded with its outcome."""
    result = _applied(delivery)
    delivery.outcome = result.outcome
    delivery.reason = storable(result.reason)  # it may quote what the payload holds
    delivery.order = result.order
    delivery.applied_at = timezone.now()
    # Its row exists (written by insert_unless_present, or read): an UPDATE, never an INSERT.
    delivery.save(update_fields=["outcome", "reason", "order", "applied_at", "runs"], force_update=True)
    delivery_of_erased_order_erase(delivery, result.order)
    logger.info(
        "platform delivery applied",
        extra={
            "delivery_id": str(delivery.id),
            "topic": delivery.topic,
            "outcome": delivery.outcome,
            "order_id": str(result.order.id) if result.order else "",
        },
    )
    if then_waiting and (result.order_created or result.parcel_recorded):
        _waiting_apply(delivery)


def _applied(delivery: PlatformDelivery) -> TopicResult:
    try:
        with transaction.atomic():
            return topic_apply(delivery.shop, delivery.topic, delivery.body)
    except Unusable as exc:
        return TopicResult(Outcome.COULD_NOT_USE, str(exc))
    except OrderNotYetReceived as exc:
        return TopicResult(Outcome.WAITING, str(exc))
    except _PAYLOAD_ERRORS as exc:
        logger.exception(
            "platform delivery could not be applied: kept for a person",
            extra={"delivery_id": str(delivery.id), "topic": delivery.topic},
        )
        cause = (str(exc).splitlines() or [""])[0][:300]
        return TopicResult(
            Outcome.COULD_NOT_USE,
            f"Applying it failed on what this service did not foresee ({type(exc).__name__}: {cause}); "
            "the error is logged with its traceback. Run it again once its cause is fixed.",
        )


def _waiting_apply(created_by: PlatformDelivery) -> None:
    """The parcels, refunds and parcels' news that arrived before their order (or their parcel),
    applied now in the order they arrived."""
    if not _any_waiting(created_by):
        return
    # Pass after pass, each reading the rows still waiting: a pass that records a parcel lets
    # its news waiting behind it in the next one. A loop, not a recursion (one nesting per
    # parcel would end in a RecursionError), and no row applied from a stale copy: it stops
    # when a pass applies none, so at most as many passes as rows were waiting.
    while True:
        waiting = PlatformDelivery.objects.filter(
            shop=created_by.shop, platform_order_id=created_by.platform_order_id, outcome=Outcome.WAITING
        ).order_by("received_at")
        applied = 0
        for delivery in waiting:
            delivery.shop = created_by.shop
            delivery_apply(delivery, then_waiting=False)
            applied += delivery.outcome != Outcome.WAITING
        if not applied:
            return


# Through the partial index platform_delivery_waiting (its condition written out, so that a
# generic plan of the prepared statement can use it): almost always finds nothing.
_ANY_WAITING = (
    f"SELECT 1 FROM {PlatformDelivery._meta.db_table} "
    f"WHERE shop_id = %s AND platform_order_id = %s AND outcome = '{Outcome.WAITING.value}' LIMIT 1"
)


def _any_waiting(created_by: PlatformDelivery) -> bool:
    with prepared_cursor() as cursor:
        cursor.execute(_ANY_WAITING, [created_by.shop_id, created_by.platform_order_id])
        return cursor.fetchone() is not None
