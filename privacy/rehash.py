"""Moving the stored keyed hashes of addresses (infra/keyed_hash.py) to the current key and form:
after PERSONAL_DATA_HASH_KEY was rotated (the old key kept as PERSONAL_DATA_HASH_KEY_PREVIOUS),
and for addresses of internationalised domains hashed before domains were normalised, or
under the IDNA 2003 rule (ada@straße.de hashed as ada@strasse.de, infra/addresses.py).

A row that holds its address (an order, a suppression, an attempt, a provider event) gets its
address's hash anew. A row that holds only a hash (its address erased, or never kept: the
record of an erasure or an export) cannot be remade from it: it moves when this service still
holds its address in another row, whose old hashes then point to the new one. The rest is
counted: made under the previous key, those rows match only while that key is set, and each
moves once its address is held again (a new order) and this runs again. A hash alone made
under IDNA 2003 is not followed: it is also the hash of the other domain (strasse.de), whose
address it keeps standing for.

In batches, each a short transaction of its own, so no row stays locked for long.
"""

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Case, F, Model, QuerySet, Value, When

from infra.keyed_hash import address_hash, address_hashes
from notifications.models import DeliveryAttempt, ProviderEvent, Suppression
from orders.models import Order
from privacy.models import Erasure, Export

BATCH_SIZE = 500


@dataclass(frozen=True)
class Hashed:
    """A column of keyed hashes, and the column of the address it stands for (None: the row
    never holds the address)."""

    model: type[Model]
    hash_field: str
    address_field: str | None

    @property
    def name(self) -> str:
        return f"{self.model._meta.label}.{self.hash_field}"

    def only_hashed(self) -> QuerySet[Any]:
        rows = self.model._default_manager.exclude(**{self.hash_field: ""})
        return rows.filter(**{self.address_field: ""}) if self.address_field else rows


HASHED = (
    Hashed(Order, "customer_email_hash", "customer_email"),
    Hashed(Suppression, "address_hash", "address"),
    Hashed(DeliveryAttempt, "recipient_hash", "recipient"),
    Hashed(ProviderEvent, "recipient_hash", "recipient"),
    Hashed(Erasure, "address_hash", None),
    Hashed(Export, "address_hash", None),
)


@dataclass(frozen=True)
class Rehash:
    moved: Counter[str]  # rows given the current hash, by column
    only_hashed: Counter[str]  # rows left with a hash alone whose address no row holds


def hashes_rehash(*, dry_run: bool, batch_size: int = BATCH_SIZE) -> Rehash:
    """Move every hash this service can remake; with `dry_run`, count them and change nothing."""
    moved: Counter[str] = Counter()
    followed: dict[str, set[Any]] = {column.name: set() for column in HASHED}
    for column in HASHED:
        if column.address_field is None:
            continue
        for batch in _held_addresses(column, batch_size):
            with transaction.atomic():
                moved[column.name] += _rows_rehash(column, batch, dry_run=dry_run)
                _hashes_follow(batch, dry_run=dry_run, into=followed)
    for name, pks in followed.items():
        moved[f"{name} (hash only)"] = len(pks)
    only_hashed = Counter({column.name: column.only_hashed().count() for column in HASHED})
    only_hashed.subtract({name: len(pks) for name, pks in followed.items()})  # moved: not left
    return Rehash(moved=+moved, only_hashed=+only_hashed)


def _held_addresses(column: Hashed, batch_size: int) -> Iterator[list[tuple[Any, str, str]]]:
    """(pk, address, stored hash) of each row that holds its address, by pk, a batch at a time."""
    assert column.address_field is not None
    rows = column.model._default_manager.exclude(**{column.address_field: ""}).order_by("pk")
    fields = ("pk", column.address_field, column.hash_field)
    last = None
    while True:
        batch = list(
            (rows.filter(pk__gt=last) if last is not None else rows).values_list(*fields)[:batch_size]
        )
        if not batch:
            return
        yield batch
        last = batch[-1][0]


def _rows_rehash(column: Hashed, batch: list[tuple[Any, str, str]], *, dry_run: bool) -> int:
    """The rows of the batch whose hash is not their address's current one get it."""
    stale = {pk: address_hash(address) for pk, address, stored in batch if stored != address_hash(address)}
    if not stale or dry_run:
        return len(stale)
    whens = [When(pk=pk, then=Value(new)) for pk, new in stale.items()]
    return column.model._default_manager.filter(pk__in=stale).update(
        **{column.hash_field: Case(*whens, default=F(column.hash_field))}
    )


def _hashes_follow(batch: list[tuple[Any, str, str]], *, dry_run: bool, into: dict[str, set[Any]]) -> None:
    """The rows holding a hash alone under an old hash of an address of the batch get its
    current one; their pks are added `into` their column's."""
    new_of = {
        old: hashes[0]
        for _, address, _ in batch
        for hashes in [address_hashes(address)]
        for old in hashes[1:]
    }
    if not new_of:
        return
    for column in HASHED:
        rows = column.only_hashed().filter(**{f"{column.hash_field}__in": list(new_of)})
        pks = set(rows.values_list("pk", flat=True))
        if pks and not dry_run:
            whens = [When(**{column.hash_field: old}, then=Value(new)) for old, new in new_of.items()]
            column.model._default_manager.filter(pk__in=pks).update(
                **{column.hash_field: Case(*whens, default=F(column.hash_field))}
            )
        into[column.name] |= pks
