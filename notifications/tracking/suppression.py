"""The suppression list: addresses we no longer send to, because they bounced hard or their
owner complained. The delivery rules skip them (notifications/delivery/rules.py); a
reviewer lifts a suppression in the admin, audited."""

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from infra.address_match import AddressMatch, address_match_sql, stored_suffice
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
    return Suppression.objects.filter(AddressMatch("address_hash", "address", address))


def suppression_active(address: str) -> Suppression | None:
    """The address's active suppression (each lookup through a partial unique index)."""
    return suppressions_of(address).filter(lifted_at__isnull=True).first()


def suppression_found(suppression_id: int | None, order: Order) -> Suppression | None:
    """The active suppression of the order's address, from what the claim's read found
    (`suppression_id`, SUPPRESSION_OF_ORDER_SQL): that read asks the rule with the order's
    stored hash and its address, all it asks for most addresses; for the others (a key rotation
    under way, an internationalised domain, an order's hash missing or stale) the address's own
    look-up answers instead. One statement at most, none where the read suffices and found none."""
    address = order.customer_email
    if not address:  # erased: the rules skip its emails (notifications/delivery/rules.py)
        return None
    if not stored_suffice(address, order.customer_email_hash):
        return suppression_active(address)
    return Suppression.objects.get(pk=suppression_id) if suppression_id is not None else None


def suppression_add(*, event: ProviderEvent, address: str, hashed: str = "") -> bool:
    """Suppress the address after a hard bounce or a complaint; False if it already was. Once
    its owner had it erased (`address` empty), by its keyed hash alone (`hashed`)."""
    reason = (
        Suppression.Reason.COMPLAINED
        if event.kind == ProviderEvent.Kind.COMPLAINED
        else Suppression.Reason.BOUNCED
    )
    hashed = address_hash(address) if address else hashed
    found = suppressions_of(address) if address else Suppression.objects.filter(address_hash=hashed)
    if found.filter(lifted_at__isnull=True).exists():
        return False
    try:
        with transaction.atomic():  # a savepoint: a concurrent insert only undoes this one
            Suppression.objects.create(
                address=address,
                address_hash=hashed,
                reason=reason,
                detail=event.description,
                provider_event=event,
            )
    except IntegrityError:  # a partial unique index (the address, its hash): suppressed already
        return False
    return True


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
