"""Prepared statements for the hot path's own SQL: PostgreSQL parses and plans a statement once
per connection instead of at every execution.

Django sends every query as text with its values written in (client-side binding), so
PostgreSQL parses and plans each one anew, and it disables psycopg's prepared statements by
default for the sake of connection poolers. The worker's claim read (a join of five tables
with three subqueries) spent 0.24 ms of its 0.36 ms in the planner; run as a prepared
statement a round trip took 0.28 ms instead of 0.74 (measured on the development machine,
docs/performance.md). Only the statements that run for every email or every published event
use this cursor; the ORM keeps Django's.

`DATABASE_PREPARED_STATEMENTS=false` turns it off, for a pooler that cannot keep a
session's prepared statements (PgBouncer in transaction mode before 1.22, or without
`max_prepared_statements`; docs/deploy.md): the same statements then go as Django sends the
rest.

After a rollback (of a transaction or a savepoint) psycopg deallocates every prepared
statement of the connection, so the next use of each prepares it again: one more round trip
each, and rollbacks are rare on the hot path.
"""

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

# Prepare at the first execution: the statements that use this cursor run thousands of times
# on each connection, and psycopg keeps the 100 most recent ones per connection.
PREPARE_THRESHOLD = 0


@contextmanager
def prepared_cursor(*, numbered: bool = False) -> Iterator[CursorWrapper]:
    """A cursor of the default connection whose statements PostgreSQL prepares: used like
    `connection.cursor()` (the same transaction, the same query logging and execute wrappers,
    so tests count its statements), with `%s` / `%(name)s` placeholders bound by the server.
    `numbered`: where it can, a psycopg RawCursor, which takes PostgreSQL's own `$1` placeholders
    and parses nothing (infra/numbered_statements.py); `statement_execute` runs a statement on
    either kind."""
    if not settings.DATABASE_PREPARED_STATEMENTS:
        with connection.cursor() as cursor:
            yield cursor
        return
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:  # Django's default for poolers; ours is the setting above
        raw.prepare_threshold = PREPARE_THRESHOLD
    with connection.wrap_database_errors:
        # Django's query log writes the values into the statement's text, which it can do only
        # for `%s` placeholders: a logged cursor (DEBUG, tests counting statements) takes those.
        raw_cursor = numbered and not connection.queries_logged
        server_binding = psycopg.RawCursor(raw) if raw_cursor else psycopg.Cursor(raw)
    connection.validate_thread_sharing()
    wrapper = _LoggedPreparedCursor if connection.queries_logged else CursorWrapper  # as Django's own
    wrapped = wrapper(server_binding, connection)
    with wrapped as cursor:
        yield cursor


class _LoggedPreparedCursor(CursorDebugWrapper):
    """Django's logging cursor (DEBUG, tests counting statements), with the statement's text:
    psycopg keeps none for the execution of a prepared statement, so Django's would log None."""

    def execute(self, sql, params=None):  # type: ignore[no-untyped-def]
        with self.debug_sql(self.db.ops.compose_sql(sql, params), params):
            return super(CursorDebugWrapper, self).execute(sql, params)
