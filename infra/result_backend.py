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
    def _store_result(self, task_id: str, result: Any, status: str, *args: Any, **kwargs: Any) -> Any:
        close_old_connections()  # drops a connection that errored or outlived CONN_MAX_AGE
        try:
            return super()._store_result(task_id, result, status, *args, **kwargs)
        except DatabaseError as exc:
            close_old_connections()
            logger.error("could not store the %s result of task %s: %s", status, task_id, exc)
            return result

    def _get_task_meta_for(self, task_id: str) -> dict[str, Any]:
        close_old_connections()
        try:
            return super()._get_task_meta_for(task_id)
        except DatabaseError as exc:
            close_old_connections()
            logger.error("could not read the result of task %s: %s", task_id, exc)
            return {"status": states.PENDING, "result": None}
