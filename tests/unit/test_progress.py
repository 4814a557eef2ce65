"""infra/progress.py: a bar on a terminal, a readable line every few seconds elsewhere."""

import io

from infra.progress import BarProgress, PlainProgress, progress_report


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_plain_lines_at_most_every_few_seconds():
    lines: list[str] = []
    report = PlainProgress(lines.append, label="replay", total=10, every=3600)
    report.update(1, "1 replayed")
    assert lines == []  # not yet: one line per period, not one per message
    quick = PlainProgress(lines.append, label="replay", total=10, every=0)
    quick.update(4, "3 replayed, 1 left in the queue")
    assert lines == ["replay: looked at 4 of 10; 3 replayed, 1 left in the queue"]


def test_a_pipe_gets_lines_and_a_terminal_gets_a_bar():
    pipe, terminal = io.StringIO(), Terminal()
    assert isinstance(progress_report(pipe, label="replay", total=3, every=0), PlainProgress)
    bar = progress_report(terminal, label="replay", total=3)
    assert isinstance(bar, BarProgress)
    bar.update(2, "2 replayed")
    bar.close()
    assert "2/3" in terminal.getvalue()
    assert "2 replayed" in terminal.getvalue()
