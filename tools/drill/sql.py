"""The one row an aggregate query answers (a count, a min, a max): psycopg types fetchone() as
a row or None, and for such a query None would be a bug of ours."""

from typing import Any

import psycopg


def one_row(cursor: psycopg.Cursor[Any]) -> tuple[Any, ...]:
    row = cursor.fetchone()
    assert row is not None, "an aggregate query answers one row"
    return tuple(row)
