"""Rows another session holds, as a person's open transaction or a stuck session would: for the
tests of what a delivery does while it cannot have a row."""

import threading

import psycopg
from django.db import connection


def row_held(table: str, row_id: object, release: threading.Event) -> threading.Thread:
    """Another session holds the row's lock (FOR UPDATE) from now until `release` is set."""
    locked = threading.Event()

    def hold() -> None:
        params = connection.get_connection_params()
        with psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"}) as holder:
            holder.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [row_id])
            locked.set()
            release.wait(timeout=120)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert locked.wait(timeout=10)
    return thread
