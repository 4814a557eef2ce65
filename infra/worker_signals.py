"""Worker-side database hygiene.

With CELERY_DB_REUSE_MAX set, Celery keeps a child's database connection open across tasks
and never checks it; after a database restart every task would fail on the dead connection.
Before each task, a connection that errored or outlived CONN_MAX_AGE is dropped, and the
next query health-checks it (CONN_HEALTH_CHECKS), like Django does around each request.
"""

from celery import signals
from django.db import close_old_connections


@signals.task_prerun.connect
def renew_broken_database_connections(**kwargs) -> None:
    close_old_connections()


@signals.worker_init.connect
def refuse_to_start_with_inconsistent_settings(**kwargs) -> None:
    """`celery worker` skips Django's system checks; a worker with a lease shorter than its
    time limit could send twice, so it must not start."""
    from django.core.management import call_command

    call_command("check", fail_level="ERROR")
