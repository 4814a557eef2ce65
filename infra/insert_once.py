"""A model's row written in one prepared statement (infra/prepared.py), as `save` would write
it: every concrete field, with defaults, `auto_now_add` and plain `db_default` values applied.

- `row_insert`: the plain INSERT of a new row whose primary key the instance already has (a
  UUID made in Python). The ORM compiles its INSERT and binds every value as quoted text at
  each save: for the order and its outbox event, written in every order's transaction, that
  was a fifth of the placing process's CPU, and PostgreSQL parsed and planned both each time.
- `insert_unless_present`: INSERT … ON CONFLICT (key) DO NOTHING RETURNING, where the ORM
  needs a second statement to learn whether its `bulk_create(ignore_conflicts=True)` wrote
  anything. A concurrent writer of the same key waits for the first one's transaction and
  then finds the row: exactly one of them writes it.
- `row_insert_unless_taken`: `row_insert` that writes nothing where the row would break any
  unique constraint of the table, and says so.

A duplicate that comes in normal operation (an order sent again under its number, a second
report of one address's bounce) is written with ON CONFLICT DO NOTHING rather than refused
with an error: PostgreSQL logs a failed statement with its text (`log_min_error_statement`),
which holds its values where they are bound client-side (every ORM statement, and these with
`DATABASE_PREPARED_STATEMENTS=false`), a customer's address among them; a prepared one's
values where the server logs them (`log_parameter_max_length_on_error`); and a key's values in
the error's detail.

None sends Django's pre_save/post_save signals (no model of ours listens to them)."""

from functools import lru_cache
from typing import TypeVar

from django.db import connection
from django.db.models import Expression, Field, ForeignKey, Model
from django.db.models.expressions import DatabaseDefault

from infra.prepared import prepared_cursor

M = TypeVar("M", bound=Model)


def row_insert(instance: M) -> M:
    """Write `instance` as a new row, in the caller's transaction; returns it as Django
    returns a row it read (`Model.from_db`), so a later `save(update_fields=…)` updates it."""
    saved = _insert(instance, unique_on=None)
    assert saved is not None  # a plain INSERT writes its row or raises
    return saved


def row_insert_unless_taken(instance: M) -> M | None:
    """`row_insert`, or None, with nothing written, where a row holds the key of any unique
    constraint of the table that `instance` holds too (a row being written by a concurrent
    transaction is waited for: if it commits, it holds the key)."""
    return _insert(instance, unique_on=())


def _insert(instance: M, *, unique_on: tuple[str, ...] | None) -> M | None:
    model = type(instance)
    fields = _written_fields(model)
    if len(fields) != len(model._meta.concrete_fields):
        raise ValueError(f"{model.__name__}: a row read back needs its primary key made in Python")
    values = [_value_to_write(field, instance) for field in fields]
    with prepared_cursor() as cursor:
        cursor.execute(
            _insert_statement(model, unique_on),
            [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)],
        )
        if unique_on is not None and cursor.fetchone() is None:
            return None
    saved = model.from_db(connection.alias, [field.attname for field in fields], values)
    for field in fields:  # the related rows the caller gave (an order's token, its shop) stay at hand
        if isinstance(field, ForeignKey) and field.is_cached(instance):
            field.set_cached_value(saved, field.get_cached_value(instance))
    return saved


def insert_unless_present(instance: Model, *, unique_on: tuple[str, ...]) -> bool:
    """Write `instance` unless a row with the same `unique_on` columns exists; True when it
    wrote it. The columns must be those of a unique constraint or index of the table; none
    (`()`): any of its unique constraints or indexes, partial ones too. In the caller's
    transaction. The instance still looks unsaved to Django: save it again with
    `force_update=True`. A primary key the database numbers (an AutoField) is left to it, and
    not read back."""
    fields = _written_fields(type(instance))
    values = [field.get_db_prep_save(_value_to_write(field, instance), connection) for field in fields]
    with prepared_cursor() as cursor:
        cursor.execute(_insert_statement(type(instance), unique_on), values)
        return cursor.fetchone() is not None


def _value_to_write(field: Field, instance: Model) -> object:
    """What `save` writes for the field (its `pre_save`); a field left at a plain `db_default`
    writes that value, which is what the database would have put there."""
    value = field.pre_save(instance, add=True)
    if isinstance(value, DatabaseDefault):
        if isinstance(field.db_default, Expression):
            raise ValueError(f"{field}: give it a value, its database default is an expression")
        value = field.db_default
        setattr(instance, field.attname, value)
    return value


@lru_cache(maxsize=32)
def _written_fields(model: type[Model]) -> tuple[Field, ...]:
    """Every concrete field but a primary key the database numbers itself (an AutoField)."""
    return tuple(field for field in model._meta.concrete_fields if field is not model._meta.auto_field)


@lru_cache(maxsize=32)
def _insert_statement(model: type[Model], unique_on: tuple[str, ...] | None) -> str:
    """A plain INSERT (`unique_on` None), or one that writes nothing where the row would break
    the unique constraint on `unique_on`, or any (`()`), and returns a row only if it wrote."""
    quote = connection.ops.quote_name
    fields = _written_fields(model)
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    statement = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders})"
    if unique_on is None:
        return statement
    column_of = {field.name: field.column for field in fields}
    target = f" ({', '.join(quote(column_of[name]) for name in unique_on)})" if unique_on else ""
    return f"{statement} ON CONFLICT{target} DO NOTHING RETURNING 1"
