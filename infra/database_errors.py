"""Which database errors mean "no primary to talk to right now" rather than a fault of the
request: no server could be reached, the connection was lost or closed, the server is shutting
down or starting (a failover, a restart), or the server reached takes no writes (a standby).

They pass by themselves once a primary is back: each process's next connection finds it (libpq
tries every host of DATABASE_URL). Every other database error (a constraint, a deadlock, a
statement timeout) is about the work itself and is not one of them.
"""

from django.db import DatabaseError, InterfaceError, OperationalError

# SQLSTATEs of the server saying so: connection exceptions (class 08), admin_shutdown (the
# server stopping, as Patroni stops a primary it demotes), crash_shutdown (another backend
# crashed), cannot_connect_now (starting up, in recovery), read_only_sql_transaction (a standby).
UNAVAILABLE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "25006")


def database_unavailable(exc: BaseException | None) -> bool:
    """True if `exc` (Django's database error, with psycopg's as its cause) says there is no
    primary to talk to right now."""
    if isinstance(exc, InterfaceError):  # a connection Django had already seen closed
        return True
    if not isinstance(exc, DatabaseError):
        return False
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate is None:
        # psycopg's own OperationalError, no server's word: connecting failed or the
        # connection broke (refused, reset, closed); anything else carries a SQLSTATE
        return isinstance(exc, OperationalError)
    return sqlstate.startswith(UNAVAILABLE_SQLSTATES)
