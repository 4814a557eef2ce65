"""The invoice template: which one a document is rendered from (the version published in the
admin for its language, else the shipped notifications/documents/invoice.html: content/
sources.py, kind DOCUMENT_KIND), the document's HTML from it in the documents' restricted
language (template_language.py) with its plain values (context.py), and the layout of the HTML
of a draft or a version written in the admin in a child process under a CPU limit (layout.py
says why), for the samples and for real documents alike, each checked for its legal elements
on the pages laid out (legal_elements.py) and for text the check cannot read (svg_text.py)."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from django.utils import translation

from notifications.content.errors import RenderError
from notifications.content.render_limits import RenderBudget
from notifications.content.sources import DOCUMENT_KIND, TemplateSource, live_source
from notifications.content.template_engine import template_part_render
from notifications.documents import layout_child
from notifications.documents.context import document_context
from notifications.documents.layout import Layout, layouts_from_json, pdf_layout
from notifications.documents.legal_elements import legal_elements_check
from notifications.documents.template_language import DOCUMENT_LANGUAGE
from orders.models import Invoice

# A draft's layout: the shipped template lays out the sample invoice and credit note in under a
# second of CPU, WeasyPrint's start included. The wall-clock bound covers a busy machine and
# stays under gunicorn's worker timeout (its default, 30 s), which would kill the admin's request.
LAYOUT_MAX_CPU_SECONDS = 10
LAYOUT_MAX_WALL_SECONDS = 20
# Its heap. A real invoice of 250 lines of long names, the most a document repeats, lays out in
# under 100 MB; each process that lays out may hold one child, so this is what a worker pool
# process or a web worker may add to a host at once (docs/deploy.md).
LAYOUT_MAX_MEMORY_BYTES = 512 << 20
# What the child may see of the environment: where the fonts and the caches are, no secret.
_CHILD_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CACHE_HOME", "FONTCONFIG_FILE")


def document_source(invoice: Invoice) -> TemplateSource:
    """The template a document rendered now is rendered from, in its language."""
    return live_source(DOCUMENT_KIND, invoice.locale)


def document_html(source: TemplateSource, invoice: Invoice) -> str:
    """Raises RenderError in plain words, as an email's wording does."""
    budget = RenderBudget(source.label, what="invoice")
    with translation.override(invoice.locale):
        return template_part_render(
            source.html,
            document_context(invoice),
            language=DOCUMENT_LANGUAGE,
            part="html",
            label=source.label,
            escape=True,
            budget=budget,
        )


def document_pdf(source: TemplateSource, invoice: Invoice) -> bytes:
    """A real document's PDF from `source`, not stored; raises RenderError. The samples a
    version passed prove nothing of a real document (`{% if %}` tells them apart by their
    values), so its legal elements are checked again on its own pages, and a version written in
    the admin is laid out in the child under its limits, never in the worker's or the web
    request's own process. The shipped template is laid out here: reviewed like the code, it lays
    out the largest invoice the API allows in seconds, and a child would add its start to every
    document."""
    html = document_html(source, invoice)
    if source.version is None and not source.draft:
        layout = pdf_layout(html)
    else:
        [layout] = layouts_in_child([html], label=source.label)
    pages_check(invoice, layout, source, sample=False)
    return layout.pdf


def pages_check(document: Invoice, layout: Layout, source: TemplateSource, *, sample: bool) -> None:
    """Raise RenderError where the laid-out pages of `document`, rendered from `source`, draw text
    in an SVG image, which the check cannot read (svg_text.py), or leave out what it must show
    (legal_elements.py)."""
    label = source.label
    if layout.svg_texts:
        raise RenderError(
            f"The html template of {label} draws text in an SVG image ({layout.svg_texts[0]!r}), which "
            "the check of what an invoice must show cannot read: it could not tell whether that text "
            "runs into a value, such as a digit drawn against the VAT number or the total. Write the "
            "text as HTML text; an SVG of shapes alone, such as a logo, may stay."
        )
    legal_elements_check(document, layout.shown_text, label, sample=sample, template=source.html)


def document_preview_pdf(source: TemplateSource, invoice: Invoice) -> bytes:
    """A real document rendered from `source` (a version not yet live, say) in the source's
    language, not stored: its stored PDF stays what it is."""
    invoice.locale = source.locale  # the instance only, never saved
    return document_pdf(source, invoice)


class LayoutInterrupted(RenderError):
    """The layout child stopped for a reason of the moment, not of the HTML: past the wall-clock
    bound, killed from outside, or not started. The same HTML may lay out at the next try, so a
    document's render that failed so is not remembered as failing (pdf.py)."""


def layouts_in_child(htmls: list[str], *, label: str) -> list[Layout]:
    """Each HTML laid out by layout.py in the child (layout_child.py); raises RenderError saying
    why not."""
    limits = [str(LAYOUT_MAX_CPU_SECONDS), str(LAYOUT_MAX_MEMORY_BYTES)]
    command = [sys.executable, "-I", str(Path(layout_child.__file__)), *limits]
    environment = {name: os.environ[name] for name in _CHILD_ENVIRONMENT if name in os.environ}
    try:
        done = subprocess.run(
            command,
            input=json.dumps(htmls).encode(),
            capture_output=True,
            timeout=LAYOUT_MAX_WALL_SECONDS,
            env=environment,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        # Of the moment: a layout's own cost stops at the CPU limit, which ends the child before
        # this bound, so a child still running here waited on a busy machine for the CPU.
        raise LayoutInterrupted(
            f"Laying out {label} as a PDF took more than {LAYOUT_MAX_WALL_SECONDS} s (a busy machine, or "
            "a layout near its CPU limit: make it simpler)."
        ) from exc
    except OSError as exc:  # no process or memory left to start one: the machine's, not the HTML's
        raise LayoutInterrupted(f"The process laying out {label} as a PDF did not start: {exc}") from exc
    if done.returncode != 0:
        raise child_failure(done.returncode, done.stderr, label=label)
    return layouts_from_json(done.stdout.decode())


# Signals the child raises on its own fault while laying out what the HTML asks: a crash of
# WeasyPrint's C libraries (Pango, cairo) on it, or on an allocation the memory limit refused.
_CHILD_FAULTS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGFPE, signal.SIGILL})


def child_failure(returncode: int, said: bytes, *, label: str) -> RenderError:
    """Why a layout child that ended with `returncode`, having written `said` on its stderr,
    failed: a RenderError when the same HTML fails the same way at every try, a
    LayoutInterrupted when the next try may lay it out."""
    if returncode == -signal.SIGXCPU:
        # The CPU limit: CPU time, unlike wall-clock time, is what the layout itself costs, about
        # the same at each try whatever else the machine runs.
        return RenderError(
            f"Laying out {label} as a PDF took more than {LAYOUT_MAX_CPU_SECONDS} s of CPU (the shipped "
            "template takes a fraction of a second): does its CSS make many pages or huge boxes?"
        )
    if returncode < 0 and -returncode not in _CHILD_FAULTS:
        # Killed from outside: the kernel's out-of-memory killer (the machine short of memory;
        # the child's own heap is capped by RLIMIT_DATA, whose excess fails an allocation
        # instead), an operator, a container stopping. Not the hard CPU limit's SIGKILL: the
        # soft limit's SIGXCPU ends the child first (its default action; nothing catches it).
        return LayoutInterrupted(
            f"Laying out {label} as a PDF was stopped by signal {_signal_name(-returncode)} from outside "
            "(the machine short of memory?); the next render tries again."
        )
    # An error of WeasyPrint's, an allocation past the memory limit, a crash of its C code: the
    # same HTML under the same limits ends the same way.
    lines = said.decode(errors="replace").strip().splitlines()
    if lines:
        why = lines[-1][:300]
    elif returncode < 0:
        why = f"it crashed (signal {_signal_name(-returncode)})"
    else:
        why = f"it stopped with {returncode}"
    return RenderError(f"WeasyPrint could not lay out {label} as a PDF: {why}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
