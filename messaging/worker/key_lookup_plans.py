"""The email worker's database sessions plan every statement as a lookup by key.

The hot path's statements are prepared once per connection (infra/prepared.py), and after a
few executions PostgreSQL keeps one generic plan for each, made for the table sizes it saw
then. A worker that first runs them while the tables are small (a new deployment, or a
benchmark's phase that starts from empty tables) gets plans that read the notification and
attempt tables whole: with a batch's arrays estimated at ten rows and a table of a few pages,
a hash join over a sequential scan costs least. The plan stays as the tables grow, until an
ANALYZE happens to invalidate it: in a benchmark of 2,500 orders every email read some 1,800
notification rows and 900 attempt rows, and PostgreSQL spent a quarter of its CPU on them.

Every statement the email worker runs finds its rows by key (an order, its notification, an
attempt, an inbox row: a batch has at most DELIVERY_BATCH_SIZE of each), for which an index
is right at any size. So its sessions turn sequential scans off: the planner then takes the
index whenever there is one, and a table with none is still scanned (the setting only
penalises the scan); the prepared statements always run their generic plan (SESSION_SETTINGS
says why), the ORM's are planned at each execution as before. The relay's sessions (the
outbox sweep, retention, reconciliation over whole tables) keep the planner's own judgement.

Only with prepared statements (without them each statement is planned with its own values)
and a session that stays the worker's: behind a pooler in transaction mode a session setting
would stay on the server connection, for whichever client the pooler hands it next, so
DATABASE_SESSION_PLANS_BY_KEY=false turns this off there (docs/deploy.md).
"""

import logging
from collections.abc import Collection
from typing import Any

from celery import signals
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

from messaging.broker.topology import MAINTENANCE_QUEUE

# Sequential scans off, so every plan finds rows by index; and the kept generic plan always,
# never one planned anew with an execution's values: with the scans off the generic plan is
# the lookup by key at any size, while PostgreSQL's own choice re-planned the accepted
# outcome at every execution (its generic plan, costed for ten rows a batch, looked dearer
# than a plan for the one row it had), the planning that preparing it was meant to save.
SESSION_SETTINGS = ("enable_seqscan = off", "plan_cache_mode = force_generic_plan")

logger = logging.getLogger(__name__)


def plans_by_key_wanted(
    consumed_queues: Collection[str], *, prepared_statements: bool, session_settings_kept: bool
) -> bool:
    """Whether a worker consuming these queues should plan by key: it takes emails' work
    (any queue but the maintenance queue), its statements are prepared, and its sessions
    keep their settings (no pooler in transaction mode)."""
    return (
        prepared_statements
        and session_settings_kept
        and any(queue != MAINTENANCE_QUEUE.name for queue in consumed_queues)
    )


def session_plan_by_key(connection: BaseDatabaseWrapper) -> None:
    """Set this session's planner to lookups by key (once per connection)."""
    with connection.cursor() as cursor:
        for setting in SESSION_SETTINGS:
            cursor.execute(f"SET {setting}")


def _new_session_plans_by_key(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    if connection.alias == DEFAULT_DB_ALIAS:
        session_plan_by_key(connection)


@signals.worker_init.connect
def email_worker_sessions_plan_by_key(sender: Any = None, **kwargs: Any) -> None:
    """At a worker's start, before it forks its pool: a worker that takes emails' work has
    every database connection it opens from now on (its pool processes open their own) plan
    by key. Said in the worker's log, as the choice of a process."""
    consumed = list(sender.app.amqp.queues.consume_from) if sender is not None else []
    if not plans_by_key_wanted(
        consumed,
        prepared_statements=settings.DATABASE_PREPARED_STATEMENTS,
        session_settings_kept=settings.DATABASE_SESSION_PLANS_BY_KEY,
    ):
        return
    connection_created.connect(_new_session_plans_by_key, dispatch_uid="email-worker-plans-by-key")
    logger.info(
        "database sessions plan by key (%s): the worker takes %s",
        ", ".join(SESSION_SETTINGS),
        ", ".join(sorted(consumed)),
    )
