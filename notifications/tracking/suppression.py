"""The suppression list: addresses we no longer send to, because they bounced hard or their
owner complained. The delivery rules skip them (notifications/delivery/rules.py); a
reviewer lifts a suppression in the admin, audited."""

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from infra.address_match import (
    address_match_sql,
    rows_of_address,
    rows_standing_for,
    stands_for,
    stored_suffice,
)
from infra.insert_once import insert_unless_present
from infra.keyed_hash import address_hash
from notifications.models import OperatorAction, ProviderEvent, Suppression
from orders.models import Order

# For the claim's read (notifications/delivery/claim_read.py): the active suppression of the
# order `o` it reads, by the order's stored hash and its address (`suppression_found` says when
# those are all the rule asks for).
_OF_ORDER = address_match_sql(
    "s.address_hash", "s.address", hashes="o.customer_email_hash", forms="lower(o.customer_email)"
)
SUPPRESSION_OF_ORDER_SQL = (
    f"(SELECT s.id FROM {Suppression._meta.db_table} s WHERE s.lifted_at IS NULL AND {_OF_ORDER} LIMIT 1)"
)


def suppressions_of(address: str) -> QuerySet[Suppression]:
    """The address's suppressions, lifted ones too, by infra/address_match.py's rule: by its
    keyed hash (which outlives the address's erasure), or by the address the row holds, in any
    of its forms (a row of an earlier release holds no hash, or one made under an earlier rule,
    IDNA 2003 hashed straße.de as strasse.de, until `personal_data_rehash` moves it)."""
    return rows_of_address(Suppression.objects.all(), "address_hash", "address", address)


def suppression_active(address: str) -> Suppression | None:
    """The address's active suppression, in one statement (each lookup through a partial
    index): the first active row that stands for the address."""
    active = Suppression.objects.filter(lifted_at__isnull=True)
    return next(rows_standing_for(active, "address_hash", "address", address), None)


def suppression_found(suppression_id: int | None, order: Order) -> Suppression | None:
    """The active suppression of the order's address, from what the claim's read found
    (`suppression_id`, SUPPRESSION_OF_ORDER_SQL): that read asks the rule with the order's
    stored hash and its address, all it asks for most addresses; for the others (a key rotation
    under way, an internationalised domain, an order's hash missing or stale) the address's own
    look-up answers instead, as it does where the read found another address's row (lower()
    made the two one, or a hash of the IDNA 2003 rule did). One statement where the read found
    the address's own, none where it suffices and found none."""
    address = order.customer_email
    if not address:  # erased: the rules skip its emails (notifications/delivery/rules.py)
        return None
    if suppression_id is not None:
        found = Suppression.objects.get(pk=suppression_id)
        if stands_for(address, stored_address=found.address, stored_hash=found.address_hash):
            return found
    elif stored_suffice(address, order.customer_email_hash):
        return None
    return suppression_active(address)


def suppression_add(*, event: ProviderEvent, address: str, hashed: str = "") -> bool:
    """Suppress the address after a hard bounce or a complaint; False if it already was. Once
    its owner had it erased (`address` empty), by its keyed hash alone (`hashed`)."""
    reason = (
        Suppression.Reason.COMPLAINED
        if event.kind == ProviderEvent.Kind.COMPLAINED
        else Suppression.Reason.BOUNCED
    )
    hashed = address_hash(address) if address else hashed
    active = (
        suppression_active(address)
        if address
        else Suppression.objects.filter(address_hash=hashed, lifted_at__isnull=True).first()
    )
    if active is not None:
        return False
    if address:
        _stale_hashes_move(address, hashed)
    # Nothing written where a concurrent report suppressed it first (a partial unique index:
    # the address, its hash), and no error: PostgreSQL would log the refused INSERT, address
    # and all (infra/insert_once.py).
    return insert_unless_present(
        Suppression(
            address=address,
            address_hash=hashed,
            reason=reason,
            detail=event.description,
            provider_event=event,
        ),
        unique_on=(),
    )


def _stale_hashes_move(address: str, hashed: str) -> None:
    """An active row of another address that holds this address's hash (the IDNA 2003 rule's,
    until `personal_data_rehash` moves it) takes its own address's hash now, as the rehash
    would: the hash stands for this address, whose suppression is written next."""
    for row in Suppression.objects.filter(address_hash=hashed, lifted_at__isnull=True).exclude(address=""):
        if not stands_for(address, stored_address=row.address, stored_hash=row.address_hash):
            Suppression.objects.filter(pk=row.pk).update(address_hash=address_hash(row.address))


def suppression_reason(suppression: Suppression) -> str:
    """Why an email to the address is skipped, in plain words."""
    day = timezone.localdate(suppression.created_at).isoformat()
    what = (
        "bounced" if suppression.reason == Suppression.Reason.BOUNCED else "was reported as spam by its owner"
    )
    detail = f": {suppression.detail}" if suppression.detail else ""
    return f"The address {what} on {day}{detail}. It is on the suppression list; a reviewer can lift it."


@transaction.atomic
def suppression_lift(*, suppression_id: int, actor: User, comment: str) -> bool:
    """Lift an active suppression, audited; False if it was already lifted."""
    if not comment.strip():
        raise ValueError("Lifting a suppression needs a comment: why may we send to this address again?")
    suppression = Suppression.objects.select_for_update().get(pk=suppression_id)
    if suppression.lifted_at is not None:
        return False
    suppression.lifted_at = timezone.now()
    suppression.lifted_by = actor
    suppression.lift_comment = comment
    suppression.save(update_fields=["lifted_at", "lifted_by", "lift_comment"])
    OperatorAction.objects.create(
        actor=suppression.lifted_by,
        actor_name=actor.get_username(),
        action=OperatorAction.Action.LIFT_SUPPRESSION,
        comment=comment,
        result=f"{suppression.address or 'An erased address'} may receive email again "
        f"(was {suppression.reason})",
        finished_at=suppression.lifted_at,
    )
    return True
