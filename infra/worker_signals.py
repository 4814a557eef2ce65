"""Worker-side database hygiene.

With CELERY_DB_REUSE_MAX set, Celery keeps a child's database connection open across tasks
and never checks it; after a database restart every task would fail on the dead connection.
Before a task, a connection that errored or outlived CONN_MAX_AGE is dropped, and the next
query health-checks it (CONN_HEALTH_CHECKS), like Django does around each request; but not
between tasks that follow each other closely: a connection that answered a moment ago is
alive, and the check was a twentieth of a busy worker's time. A connection that breaks in
between fails its task's first query, which is retried, and is renewed before the next task.
"""

import time

from celery import signals
from django.db import close_old_connections, connection

# A connection idle for longer than this is health-checked before the next task.
HEALTH_CHECK_AFTER_IDLE_SECONDS = 1.0
_last_task_finished = 0.0


@signals.task_prerun.connect
def renew_broken_database_connections(**kwargs: object) -> None:
    database_connections_renew()


@signals.task_postrun.connect
def note_the_connection_was_just_used(**kwargs: object) -> None:
    database_connection_used()


def database_connections_renew() -> None:
    """Before a task."""
    idle = time.monotonic() - _last_task_finished
    if connection.errors_occurred or idle > HEALTH_CHECK_AFTER_IDLE_SECONDS:
        close_old_connections()


def database_connection_used() -> None:
    global _last_task_finished
    _last_task_finished = time.monotonic()


@signals.worker_init.connect
def refuse_to_start_with_inconsistent_settings(**kwargs: object) -> None:
    """`celery worker` skips Django's system checks; a worker with a lease shorter than its
    time limit could send twice, so it must not start."""
    from django.core.management import call_command

    call_command("check", fail_level="ERROR")
