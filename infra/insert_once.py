"""One row written unless its unique key is taken, in one prepared statement: INSERT … ON
CONFLICT (key) DO NOTHING RETURNING, where the ORM needs a second statement to learn whether
its `bulk_create(ignore_conflicts=True)` wrote anything. A concurrent writer of the same key
waits for the first one's transaction and then finds the row: exactly one of them writes it."""

from functools import lru_cache

from django.db import connection
from django.db.models import Model

from infra.prepared import prepared_cursor


def insert_unless_present(instance: Model, *, unique_on: tuple[str, ...]) -> bool:
    """Write `instance` (every concrete field, defaults and `auto_now_add` applied as `save`
    would) unless a row with the same `unique_on` columns exists; True when it wrote it. The
    columns must be those of a unique constraint or index of the table. In the caller's
    transaction. The instance still looks unsaved to Django: save it again with
    `force_update=True`."""
    fields = type(instance)._meta.concrete_fields
    values = [field.get_db_prep_save(field.pre_save(instance, add=True), connection) for field in fields]
    with prepared_cursor() as cursor:
        cursor.execute(_insert_statement(type(instance), unique_on), values)
        return cursor.fetchone() is not None


@lru_cache(maxsize=32)
def _insert_statement(model: type[Model], unique_on: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    columns = ", ".join(quote(field.column) for field in fields)
    column_of = {field.name: field.column for field in fields}
    conflict = ", ".join(quote(column_of[name]) for name in unique_on)
    placeholders = ", ".join(["%s"] * len(fields))
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders}) "
        f"ON CONFLICT ({conflict}) DO NOTHING RETURNING 1"
    )
