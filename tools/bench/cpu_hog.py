"""A process that keeps one core busy, for the contended phase: a small or busy machine, where
someone else's work takes a core from the pipelines.

`python -m tools.bench.cpu_hog SECONDS`: one thread spinning until SECONDS
have passed, then it exits by itself (the bench stops it sooner, by its pid). It prints
"spinning" once it runs. `CpuHog.cores()` says how much of a core it really got: a hog that
got little did not contend, and the phase says so instead of reporting an easy run.
"""

import os
import sys
import time
from pathlib import Path

from tools.drill.processes import ManagedProcess

# Bounded by itself: at most this long, whatever the bench does.
MOST_SECONDS = 900.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _spin(seconds: float) -> None:
    # Not pinned to a core: pinned, it would share that core with whatever the scheduler put
    # there while the other idled; free, it takes a core's worth wherever one is free.
    print("spinning", flush=True)
    deadline = time.monotonic() + min(seconds, MOST_SECONDS)
    counter = 0
    while time.monotonic() < deadline:
        for _ in range(10_000):
            counter += 1


class CpuHog:
    def __init__(self, log_path: Path, *, seconds: float):
        self._process = ManagedProcess(
            "cpu-hog",
            [sys.executable, "-m", "tools.bench.cpu_hog", str(seconds)],
            env=dict(os.environ),
            log_path=log_path,
        )

    def start(self) -> "CpuHog":
        self._process.start(ready="spinning", timeout=30)
        self._started = time.monotonic()
        self._cpu_at_start = self._cpu_seconds()
        return self

    def cores(self) -> float:
        """The cores it used since it began spinning (1.0: a whole core all the time)."""
        return (self._cpu_seconds() - self._cpu_at_start) / max(time.monotonic() - self._started, 1e-6)

    def running(self) -> bool:
        return self._process.process.poll() is None

    def stop(self) -> None:
        self._process.stop()

    def _cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


if __name__ == "__main__":
    _spin(float(sys.argv[1]))
