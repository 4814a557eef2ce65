"""django-celery-results' database backend, made to survive a database restart.

The worker's main process stores a task failure *before* it rejects the message to the
dead-letter queue. With the stock backend a connection broken by a database restart makes
that store raise on every failure, so the message is neither rejected nor acked and the
worker stalls. Here the connection is renewed when broken, and a store that still fails is
logged and skipped: the notification tables are the ledger, the task result is a convenience.
"""

import logging
from typing import Any

from celery import states
from django.db import DatabaseError, close_old_connections
from django_celery_results.backends.database import DatabaseBackend

logger = logging.getLogger(__name__)


class ResilientDatabaseBackend(DatabaseBackend):
    # The backend's public entry points (every store and read of Celery's goes through them),
    # not the `_store_result` / `_get_task_meta_for` hooks behind them, which are its internals.
    def store_result(
        self, task_id: str, result: Any, state: str, traceback: Any = None, request: Any = None, **kwargs: Any
    ) -> Any:
        close_old_connections()  # drops a connection that errored or outlived CONN_MAX_AGE
        try:
            return super().store_result(
                task_id, result, state, traceback=traceback, request=request, **kwargs
            )
        except DatabaseError as exc:
            close_old_connections()
            logger.error("could not store the %s result of task %s: %s", state, task_id, exc)
            return result

    def get_task_meta(self, task_id: str, cache: bool = True) -> dict[str, Any]:
        close_old_connections()
        try:
            return super().get_task_meta(task_id, cache=cache)
        except DatabaseError as exc:
            close_old_connections()
            logger.error("could not read the result of task %s: %s", task_id, exc)
            return {"status": states.PENDING, "result": None}
