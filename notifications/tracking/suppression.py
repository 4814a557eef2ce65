"""The suppression list: addresses we no longer send to, because they bounced hard or their
owner complained. The delivery rules skip them (notifications/delivery/rules.py); a
reviewer lifts a suppression in the admin, audited."""

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from infra.addresses import address_forms
from infra.keyed_hash import address_hash, address_hashes
from notifications.models import OperatorAction, ProviderEvent, Suppression


def suppressions_of(address: str) -> QuerySet[Suppression]:
    """The address's suppressions, lifted ones too, found by its keyed hash (which outlives the
    address's erasure; any of infra/keyed_hash.py's `address_hashes`) or by the address the row
    holds, in any of its forms: a row of an earlier release holds no hash, or one made under an
    earlier rule (IDNA 2003 hashed straße.de as strasse.de) until `personal_data_rehash` moves it."""
    hashed = Q(address_hash__in=address_hashes(address))
    written = Q(address_lower__in=address_forms(address))
    return Suppression.objects.alias(address_lower=Lower("address")).filter(hashed | written)


def suppression_active(address: str) -> Suppression | None:
    """The address's active suppression (each lookup through a partial unique index)."""
    return suppressions_of(address).filter(lifted_at__isnull=True).first()


def suppression_found(suppression_id: int | None, address: str) -> Suppression | None:
    """The suppression the claim's read found for an order's address; without one, the address's
    own look-up where a hash of it may differ from the order's: during a key rotation, or for an
    internationalised domain hashed before domains were normalised (the read matches one hash)."""
    if suppression_id is not None:
        return Suppression.objects.get(pk=suppression_id)
    if address and len(address_hashes(address)) > 1:
        return suppression_active(address)
    return None


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
