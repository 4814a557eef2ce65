"""How the layout child's end is read (notifications/documents/template.py): a failure the same
HTML gives again (the CPU limit, an error of WeasyPrint's, an allocation past the memory limit,
a crash of its C code) is a plain RenderError, which pdf.py remembers; a child killed from
outside is a LayoutInterrupted, which it does not, since the next try may lay the same HTML out."""

import signal

import pytest

from notifications.content.errors import RenderError
from notifications.documents.template import LAYOUT_MAX_CPU_SECONDS, LayoutInterrupted, child_failure

WEASYPRINT_SAID = b"Traceback (most recent call last):\n  ...\nMemoryError\n"


@pytest.mark.parametrize(
    ("returncode", "said", "interrupted", "words"),
    [
        (-signal.SIGXCPU, b"", False, f"took more than {LAYOUT_MAX_CPU_SECONDS} s of CPU"),
        (1, WEASYPRINT_SAID, False, "WeasyPrint could not lay out the draft as a PDF: MemoryError"),
        (1, b"", False, "it stopped with 1"),
        (
            -signal.SIGSEGV,
            b"",
            False,
            "WeasyPrint could not lay out the draft as a PDF: it crashed (signal SIGSEGV)",
        ),
        (-signal.SIGABRT, b"", False, "it crashed (signal SIGABRT)"),
        (-signal.SIGKILL, b"", True, "was stopped by signal SIGKILL"),
        (-signal.SIGTERM, b"", True, "was stopped by signal SIGTERM"),
    ],
)
def test_only_a_failure_the_same_html_gives_again_is_final(returncode, said, interrupted, words):
    failure = child_failure(returncode, said, label="the draft")
    assert isinstance(failure, RenderError)
    assert isinstance(failure, LayoutInterrupted) is interrupted
    assert words in str(failure)
