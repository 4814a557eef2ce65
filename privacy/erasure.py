"""Erasing one customer's personal data at their request (GDPR art. 17), by their address.

One transaction: the customer's orders are locked first (in id order, as a claim locks them,
so neither waits on the other in a circle), then each feature erases what it holds about them
(orders/personal_data.py, notifications/personal_data.py, the features above this one through
PERSONAL_DATA_ERASURE_STEPS, the tables no feature owns in privacy/shared_tables.py), and the
erasure is recorded without the address. An email being sent at that moment makes the whole
erasure wait (EmailsInFlight, nothing changed): its worker records its outcome first, and the
erasure is run again; with the orders locked and marked erased, no email of them starts after.

Safe to run twice: the second finds the same orders by the address's keyed hash, changes
nothing, and is recorded too, saying so.
"""

from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from infra.addresses import address_forms
from infra.keyed_hash import address_hash, address_hashes
from notifications.personal_data import EmailsInFlight, notifications_erase
from orders.personal_data import orders_erase, personal_words
from privacy.models import Erasure
from privacy.reach import EVERYTHING, Reach
from privacy.shared_tables import admin_history_erase, dead_letters_erase, task_results_erase

__all__ = ["AddressRefused", "EmailsInFlight", "customer_erase"]

Step = Callable[..., dict[str, int]]


class AddressRefused(ValueError):
    """What was given is not an email address: nothing was erased or exported."""


@transaction.atomic(durable=True)
def customer_erase(
    *, address: str, via: str, actor: User | None, actor_name: str, reach: Reach = EVERYTHING
) -> Erasure:
    """Erase everything personal held about `address` that the asker may reach (privacy/reach.py:
    an operator everything, a connected shop's platform that shop's, an API client its client's
    orders); the record says what changed. Raises AddressRefused for something that is not an
    address, EmailsInFlight while one of the customer's emails is being sent (nothing changed:
    run it again once it is done)."""
    address = address_checked(address)
    now = timezone.now()
    order_ids = list(
        reach.orders(address)
        .select_for_update(no_key=True, of=("self",))
        .order_by("id")
        .values_list("id", flat=True)
    )
    return Erasure.objects.create(
        address_hash=address_hash(address),
        via=via,
        actor=actor,
        actor_name=actor_name,
        client=reach.client,
        changed=_rows_erase(order_ids, address=address, reach=reach, now=now),
        erased_at=now,
    )


def _rows_erase(order_ids: list, *, address: str, reach: Reach, now: datetime) -> dict[str, int]:
    """Each feature's rows, and those of the tables no feature owns; how many of each changed."""
    # What the rows of these orders may quote the customer by, read before their content is
    # erased; any other row it reaches loses the address alone: a part of a name is anybody's word.
    words = [*address_forms(address), *personal_words(order_ids)]
    elsewhere, shared = reach.elsewhere(address), reach.shared(address)
    changed = orders_erase(order_ids, now=now)
    changed.update(
        notifications_erase(
            order_ids=order_ids,
            address=address,
            words=words,
            elsewhere=shared,
            now=now,
            other_sends=reach.other_sends,
            suppression=reach.suppression,
        )
    )
    for step in _feature_steps():  # a feature above this one knows the reach of its own rows
        changed.update(
            step(order_ids=order_ids, address=address, words=words, elsewhere=elsewhere, now=now, reach=reach)
        )
    for shared_step in (dead_letters_erase, task_results_erase, admin_history_erase):
        changed.update(
            shared_step(order_ids=order_ids, address=address, words=words, elsewhere=shared, now=now)
        )
    return changed


def address_checked(address: str) -> str:
    """The address, trimmed; AddressRefused for what is not one."""
    address = address.strip()
    try:
        validate_email(address)
    except ValidationError as exc:
        raise AddressRefused(f"{address!r} is not an email address.") from exc
    return address


def erasures_of(address: str, reach: Reach = EVERYTHING) -> "list[Erasure]":
    """The recorded erasures of an address (found by its keyed hash), newest first; for an API
    client, those it asked for."""
    erasures = Erasure.objects.filter(address_hash__in=address_hashes(address))
    if reach.api_token is not None:
        erasures = erasures.filter(client=reach.client)
    return list(erasures)


def _feature_steps() -> list[Step]:
    return [import_string(path) for path in settings.PERSONAL_DATA_ERASURE_STEPS.values()]
