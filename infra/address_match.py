"""Which stored rows stand for an email address: the one rule for every table that keeps an
address beside its keyed hash (infra/keyed_hash.py): the suppression list, the attempts, the
provider's events.

A row stands for the address when it holds one of the address's hashes (`address_hashes`: under
the current key and the previous one, of each of the address's forms), which outlives the
address's erasure; or when it holds the address itself in one of its forms (`address_forms`,
compared in lower case), which a row of an earlier release holds without a hash, or with a hash
of an earlier rule (or of a retired key) until `manage.py personal_data_rehash` moves it. An
empty column stands for nothing.

The rule is one SQL condition (`address_match_sql`), given the address's hashes and forms as SQL:
`AddressMatch` gives them as parameters, for the ORM; a statement of our own gives another row's
columns (the claim's read gives its order's, notifications/delivery/claim_read.py), and
`stored_suffice` says when those are all the rule asks for.

The condition finds every row that stands for the address, and may find others: PostgreSQL's
lower() is not Python's lower case (it makes the dotted capital I of ada@İstanbul.com an i,
so that address is ada@istanbul.com to it, another address to IDNA 2008), and a hash of the
IDNA 2003 rule is another domain's address's hash too. `stands_for` judges each row found: a row
that holds its address stands for that address alone. `rows_of_address` is both.
"""

from collections.abc import Iterator
from typing import Any, TypeVar

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import BooleanField, F, Func, QuerySet
from django.db.models.sql.compiler import SQLCompiler

from infra.addresses import address_comparable, address_forms
from infra.keyed_hash import address_hashes


def address_match_sql(hash_column: str, address_column: str, *, hashes: str, forms: str) -> str:
    """The rule as SQL: whether the row whose columns are `hash_column` and `address_column`
    stands for the address whose keyed hashes are the SQL list `hashes` and whose forms (in
    lower case) are the SQL list `forms`. Each lookup through the partial indexes that leave
    empty columns out (Suppression's)."""
    return (
        f"({hash_column} <> '' AND {hash_column} IN ({hashes})"
        f" OR {address_column} <> '' AND lower({address_column}) IN ({forms}))"
    )


class AddressMatch(Func):
    """The rule as an ORM condition: the rows of a model that stand for `address`, its hash and
    its address in the named fields. `Suppression.objects.filter(AddressMatch("address_hash",
    "address", address))`."""

    output_field = BooleanField()

    def __init__(self, hash_field: str, address_field: str, address: str) -> None:
        super().__init__(F(hash_field), F(address_field))
        # Each form through lower() as the row's address is, and the address as written too:
        # Python's lower case of a form may not be lower()'s of the row (the dotted capital I).
        self.hashes = address_hashes(address)
        self.forms = list(dict.fromkeys([*address_forms(address), address.strip()]))

    def as_sql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, *args: Any, **kwargs: Any
    ) -> tuple[str, tuple[Any, ...]]:
        # The columns, as the query names its table (a subquery renames it): no parameters.
        columns = self.get_source_expressions()
        hash_column, address_column = (compiler.compile(column)[0] for column in columns)
        sql = address_match_sql(
            hash_column,
            address_column,
            hashes=_placeholders(self.hashes),
            forms=", ".join(["lower(%s)"] * len(self.forms)),
        )
        return sql, (*self.hashes, *self.forms)


def stored_suffice(address: str, stored_hash: str) -> bool:
    """Whether the rule given a row's stored hash and its address in lower case (SQL's lower)
    is the rule given the address: for an ASCII address (Python's lower case and PostgreSQL's
    agree), written in its one form, whose stored hash is its one hash. Not while a key rotation
    is under way, for an internationalised domain, or where the stored hash is missing or stale
    (a retired key; IDNA 2003's, which is another domain's address's hash too)."""
    return (
        address.isascii()
        and address_forms(address) == [address.lower()]
        and address_hashes(address) == [stored_hash]
    )


def stands_for(address: str, *, stored_address: str, stored_hash: str) -> bool:
    """Whether a row that AddressMatch found stands for the address: one that holds an address,
    when it is the same address as infra/addresses.py compares them, whatever its hash says;
    one that holds its hash alone, when that is one of the address's hashes."""
    if stored_address:
        return address_comparable(stored_address) == address_comparable(address)
    return bool(stored_hash) and stored_hash in address_hashes(address)


Rows = TypeVar("Rows", bound=QuerySet[Any])


def rows_standing_for(
    rows: QuerySet[Any], hash_field: str, address_field: str, address: str
) -> Iterator[Any]:
    """Those of `rows` that stand for the address, in one statement: found by AddressMatch,
    each judged by `stands_for`."""
    for row in rows.filter(AddressMatch(hash_field, address_field, address)):
        stored_address, stored_hash = getattr(row, address_field), getattr(row, hash_field)
        if stands_for(address, stored_address=stored_address, stored_hash=stored_hash):
            yield row


def rows_of_address(rows: Rows, hash_field: str, address_field: str, address: str) -> Rows:
    """`rows_standing_for` as a queryset (one statement now, the queryset's own when used)."""
    found = rows.only("pk", hash_field, address_field)
    standing = rows_standing_for(found, hash_field, address_field, address)
    return rows.filter(pk__in=[row.pk for row in standing])


def _placeholders(values: list[str]) -> str:
    return ", ".join(["%s"] * len(values))
