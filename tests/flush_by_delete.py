"""The end of a transactional test empties the tables with DELETE, not PostgreSQL's TRUNCATE.

Django's flush (which TransactionTestCase runs after each such test) is one TRUNCATE of every
table. TRUNCATE gives each table and index a new file and leaves the old ones for the next
checkpoint to remove: about 150 files a test, 105 ms on an empty database, where deleting the
few rows a test wrote takes 5 ms. On a parallel run the files pile up in every process's
database, and the checkpoint a dropped database forces syncs them all at once: that stall
once held RabbitMQ's disk writes (and every broker connection of the run) for minutes.

What is emptied is the same, and sequences are left as TRUNCATE without RESTART IDENTITY
leaves them. Our foreign keys are DEFERRABLE INITIALLY DEFERRED (Django makes them so, and
`test_every_foreign_key_is_deferred` holds the database to it), and the flush runs in one
transaction, so the tables can be emptied in any order. A flush that resets sequences or
cascades (Django asks for those only for `reset_sequences` or `available_apps`) stays
Django's own."""

from django.db.backends.postgresql.operations import DatabaseOperations

_truncate_flush = DatabaseOperations.sql_flush


def _delete_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    if reset_sequences or allow_cascade:
        return _truncate_flush(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    delete = style.SQL_KEYWORD("DELETE FROM")
    return [f"{delete} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]


def flush_by_delete_install() -> None:
    """Make this test process's flushes DELETE (called once, before any test)."""
    DatabaseOperations.sql_flush = _delete_flush  # type: ignore[method-assign]
