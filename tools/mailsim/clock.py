"""The simulator clock: wall time plus an offset that tests move forward to expire idempotency windows.

The offset is injected (and persisted by the caller) rather than patched into ``time`` so the server
process can be time-travelled over HTTP while it keeps running.
"""

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime


class Clock:
    def __init__(self, offset_seconds: float = 0.0, wall: Callable[[], float] = time.time):
        self._offset = float(offset_seconds)
        self._wall = wall
        self._lock = threading.Lock()

    @property
    def offset_seconds(self) -> float:
        return self._offset

    def now(self) -> float:
        return self._wall() + self._offset

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._offset += seconds
            return self._offset

    def reset(self) -> None:
        with self._lock:
            self._offset = 0.0


def to_iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
