"""Progress of a long command: a `rich` bar on a terminal, plain periodic lines otherwise
(a log or a pipe gets one readable line every few seconds, not a redrawn bar)."""

import time
from collections.abc import Callable
from typing import Protocol, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class ProgressReport(Protocol):
    def update(self, done: int, status: str) -> None: ...

    def note(self, line: str) -> None:
        """A line of output above the bar (a bar redraws itself: a plain write would tear it)."""

    def close(self) -> None: ...


class PlainProgress:
    def __init__(self, write: Callable[[str], object], *, label: str, total: int, every: float) -> None:
        self._write, self._label, self._total, self._every = write, label, total, every
        self._last_at = time.monotonic()
        self._last_line = ""

    def update(self, done: int, status: str) -> None:
        self._last_line = f"{self._label}: looked at {done} of {self._total}; {status}"
        if time.monotonic() - self._last_at >= self._every:
            self._write(self._last_line)
            self._last_at = time.monotonic()

    def note(self, line: str) -> None:
        self._write(line)

    def close(self) -> None:
        pass


class BarProgress:
    def __init__(self, out: TextIO, *, label: str, total: int) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[status]}"),
            console=Console(file=out),
        )
        self._task = self._progress.add_task(label, total=total, status="")
        self._progress.start()

    def update(self, done: int, status: str) -> None:
        self._progress.update(self._task, completed=done, status=status)

    def note(self, line: str) -> None:
        self._progress.console.print(line, markup=False, highlight=False)

    def close(self) -> None:
        self._progress.stop()


def progress_report(out: TextIO, *, label: str, total: int, every: float = 5.0) -> ProgressReport:
    """A bar when `out` is a terminal, else a line every `every` seconds."""
    if out.isatty():
        return BarProgress(out, label=label, total=total)

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()  # a log read while the command runs shows it now

    return PlainProgress(write, label=label, total=total, every=every)
