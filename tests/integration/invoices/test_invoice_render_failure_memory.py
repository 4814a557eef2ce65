"""A document's render that failed is remembered by the process (pdf.py), and not tried again
with the same template for a while, only when the same template would fail the same way: not
when the child that lays it out was interrupted by the moment (past the wall-clock bound on a
busy machine, killed from outside, or not started at all). Each of those fails the render with
its reason, and the next try lays the document out and stores it. The real child is stopped
each way; what stays remembered (the CPU limit) is
tests/integration/api/test_invoice_api_attack.py's."""

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from notifications.content.errors import RenderError
from notifications.documents import layout_child
from notifications.documents import template as template_module
from notifications.documents.pdf import invoice_pdf
from orders.models import Invoice
from tests.integration.invoices.conftest import pdf_text
from tests.integration.invoices.template_drafts import shipped_with, stored_version

pytestmark = pytest.mark.django_db(transaction=True)
OURS = "<p>Laid out by the version, in the child.</p>"


def _layout_children() -> list[int]:
    """This process's children running the layout script."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == os.getpid() and Path(layout_child.__file__).name.encode() in command:
            found.append(int(entry.name))
    return found


class ChildKiller:
    """Kills the first layout child this process starts, with SIGKILL, as the kernel's
    out-of-memory killer would when the machine runs short."""

    def __init__(self) -> None:
        self.killed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set() and not self.killed:
            for pid in _layout_children():
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            time.sleep(0.005)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _rendered_after_it_failed(invoice: Invoice, words: str) -> None:
    with pytest.raises(RenderError, match=words):
        invoice_pdf(invoice)
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""


@pytest.fixture
def invoice(place_order) -> Invoice:
    """A paid order's invoice, not rendered yet, under a live version of the invoice template."""
    stored_version(shipped_with(body=OURS), published=True)
    return Invoice.objects.get(order=place_order(paid=True))


@pytest.mark.parametrize(
    ("interruption", "words"),
    [
        ("wall_clock", r"as a PDF took more than 0.01 s"),
        ("no_start", r"did not start"),
    ],
)
def test_a_layout_interrupted_by_the_moment_is_tried_again_at_once(
    invoice, monkeypatch, tmp_path, interruption, words
):
    # given: the child outlives a wall-clock bound a busy machine would make it miss, or cannot start
    with monkeypatch.context() as moment:
        if interruption == "wall_clock":
            moment.setattr(template_module, "LAYOUT_MAX_WALL_SECONDS", 0.01)
        else:
            moment.setattr(sys, "executable", str(tmp_path / "no-such-python"))
        # when
        _rendered_after_it_failed(invoice, words)
    # then: the next try, the moment gone, lays it out with the same template and stores it
    assert "Laid out by the version" in pdf_text(invoice_pdf(invoice))
    assert Invoice.objects.get(pk=invoice.pk).pdf_template_version == 1


def test_a_layout_killed_from_outside_is_tried_again_at_once(invoice):
    killer = ChildKiller()
    try:
        _rendered_after_it_failed(invoice, r"was stopped by signal SIGKILL")
    finally:
        killer.stop()
    assert len(killer.killed) == 1
    assert "Laid out by the version" in pdf_text(invoice_pdf(invoice))
