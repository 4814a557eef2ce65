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

Neither sends Django's pre_save/post_save signals (no model of ours listens to them)."""

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
    model = type(instance)
    fields = model._meta.concrete_fields
    values = [_value_to_write(field, instance) for field in fields]
    with prepared_cursor() as cursor:
        cursor.execute(
            _insert_statement(model, ()),
            [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)],
        )
    saved = model.from_db(connection.alias, [field.attname for field in fields], values)
    for field in fields:  # the related rows the caller gave (an order's token, its shop) stay at hand
        if isinstance(field, ForeignKey) and field.is_cached(instance):
            field.set_cached_value(saved, field.get_cached_value(instance))
    return saved


def insert_unless_present(instance: Model, *, unique_on: tuple[str, ...]) -> bool:
    """Write `instance` unless a row with the same `unique_on` columns exists; True when it
    wrote it. The columns must be those of a unique constraint or index of the table. In the
    caller's transaction. The instance still looks unsaved to Django: save it again with
    `force_update=True`."""
    fields = type(instance)._meta.concrete_fields
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
def _insert_statement(model: type[Model], unique_on: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    statement = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders})"
    if not unique_on:
        return statement
    column_of = {field.name: field.column for field in fields}
    conflict = ", ".join(quote(column_of[name]) for name in unique_on)
    return f"{statement} ON CONFLICT ({conflict}) DO NOTHING RETURNING 1"
