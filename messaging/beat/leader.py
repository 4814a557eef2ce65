"""Beat without a single point of failure: run two (or more) beat processes; the one that
holds a PostgreSQL advisory lock sends the periodic jobs, the others wait and take over
within seconds when it dies.

The lock lives on a connection of its own, held for as long as the process leads. A leader
that is killed closes that connection and the lock goes with it at once. A leader cut off
from the database (a network cut) loses it when PostgreSQL notices: the session asks the
server for TCP keepalives every few seconds, so that takes about KEEPALIVE_SECONDS, not the
server's default two hours. Until then the cut-off leader may still send jobs if it reaches
the broker, and the new one sends them too: every periodic job is safe to run twice
(docs/architecture.md, "Periodic jobs"). The leader checks its connection before each tick
that sends a job and steps down when the check fails.
"""

import contextlib
import glob
import logging
import os
import socket
import time
import zlib
from typing import Any

from celery.beat import PersistentScheduler
from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

LOCK_KEY = zlib.crc32(b"orders.beat-leader")  # one leader per database
POLL_SECONDS = 2.0  # how often a waiting beat tries to take the lead
CHECK_SECONDS = 1.0  # how often the leader makes sure its lock connection is alive
# Server-side keepalives of the lock's session: idle 5 s, then 3 probes 2 s apart.
KEEPALIVE = {"tcp_keepalives_idle": 5, "tcp_keepalives_interval": 2, "tcp_keepalives_count": 3}
KEEPALIVE_SECONDS = 5 + 2 * 3


class LeaderLock:
    """The advisory lock on its own connection: `held()` takes it if it is free, and says
    whether this process holds it now."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self._wrapper: BaseDatabaseWrapper | None = None
        self._leading = False
        self._checked_at = 0.0

    def held(self) -> bool:
        now = time.monotonic()
        if self._leading and now - self._checked_at < CHECK_SECONDS:
            return True
        try:
            self._leading = self._ask()
        except DatabaseError as exc:
            self._step_down(f"the database connection failed ({exc})")
            return False
        self._checked_at = now
        return self._leading

    def release(self) -> None:
        if self._wrapper is not None:
            self._wrapper.close()  # the session ends, and its lock with it
            self._wrapper = None
        self._leading = False

    def _ask(self) -> bool:
        if self._wrapper is None:
            self._wrapper = self._connect()
        with self._wrapper.cursor() as cursor:
            if self._leading:
                cursor.execute("SELECT 1")  # still connected: the lock is still ours
                return True
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
            won = bool(cursor.fetchone()[0])
        if won:
            logger.warning("beat %s is now the leader: it sends the periodic jobs", self.name)
        return won

    def _connect(self) -> BaseDatabaseWrapper:
        wrapper = connections.create_connection("default")
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT set_config('application_name', %s, false)", [f"beat-leader {self.name}"])
            for setting, value in KEEPALIVE.items():
                cursor.execute(f"SET {setting} = {int(value)}")
        return wrapper

    def _step_down(self, why: str) -> None:
        if self._leading:
            logger.error("beat %s is no longer the leader: %s", self.name, why)
        else:
            logger.warning("beat %s cannot ask for the lead: %s", self.name, why)
        if self._wrapper is not None:
            with contextlib.suppress(DatabaseError):  # it is broken already
                self._wrapper.close()
            self._wrapper = None
        self._leading = False


class LeaderScheduler(PersistentScheduler):
    """Celery beat's own scheduler, which sends nothing unless this process leads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.leader_lock = LeaderLock()
        self._announced_wait = False
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if not self.leader_lock.held():
            self._show_alive()
            if not self._announced_wait:
                logger.warning("beat %s waits: another beat leads", self.leader_lock.name)
                self._announced_wait = True
            return POLL_SECONDS
        self._announced_wait = False
        return float(super().tick(*args, **kwargs))

    def _show_alive(self) -> None:
        """A waiting beat writes no schedule; its liveness check reads the files' age (one
        file, or several with suffixes, as the Python's dbm module makes them)."""
        name = self.schedule_filename  # type: ignore[attr-defined]  # set by PersistentScheduler
        for path in glob.glob(glob.escape(name) + "*"):
            with contextlib.suppress(FileNotFoundError):
                os.utime(path)

    def close(self) -> None:
        super().close()
        self.leader_lock.release()
