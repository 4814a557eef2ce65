"""The broker connection a pool process takes waiting messages along on (messaging/worker/
companions.py): one per process, made on first use after the fork.

Closing it gives back to the broker every message taken on it and not yet settled, which the
broker delivers again (marked redelivered), as it does when the process dies.
"""

import logging
import os

from celery import Task
from kombu import Connection

logger = logging.getLogger(__name__)

# One connection per pool process, made on first use (after the fork), without heartbeats: it
# is used only while a task runs, and a broken one fails its next call and is made again.
_connection: tuple[int, Connection] | None = None


def fetch_connection(task: Task) -> Connection:
    global _connection
    if _connection is None or _connection[0] != os.getpid():
        connection = task.app.connection_for_read(heartbeat=0)
        # Each node of the broker list once, without kombu's pauses between tries (2 s and
        # more): while a node is down, a delivery that cannot reach another at once runs alone
        # rather than wait.
        connection.transport_options = {
            **(connection.transport_options or {}),
            **{
                "max_retries": len(connection.alt) or 1,
                "interval_start": 0,
                "interval_step": 0,
                "interval_max": 0,
            },
        }
        _connection = (os.getpid(), connection)
    return _connection[1]


def fetch_connection_drop() -> None:
    global _connection
    if _connection is not None and _connection[0] == os.getpid():
        try:
            _connection[1].release()
        except Exception:
            logger.debug("closing a broken fetch connection failed", exc_info=True)
    _connection = None
