"""The invoice template: which one a document is rendered from (the version published in the
admin for its language, else the shipped notifications/documents/invoice.html: content/
sources.py, kind DOCUMENT_KIND), the document's HTML from it in the documents' restricted
language (template_language.py) with its plain values (context.py), and the layout of the HTML
of a draft or a version written in the admin in a child process under a CPU limit (layout.py
says why), for the samples and for real documents alike, each checked for its legal elements
on the pages laid out (legal_elements.py)."""

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
LAYOUT_MAX_MEMORY_BYTES = 1 << 30  # its heap; the shipped template's check takes under 100 MB
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
    legal_elements_check(invoice, layout.shown_text, source.label, sample=False)
    return layout.pdf


def document_preview_pdf(source: TemplateSource, invoice: Invoice) -> bytes:
    """A real document rendered from `source` (a version not yet live, say) in the source's
    language, not stored: its stored PDF stays what it is."""
    invoice.locale = source.locale  # the instance only, never saved
    return document_pdf(source, invoice)


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
        raise RenderError(
            f"Laying out {label} as a PDF took more than {LAYOUT_MAX_WALL_SECONDS} s; make it simpler."
        ) from exc
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise RenderError(
            f"Laying out {label} as a PDF took more than {LAYOUT_MAX_CPU_SECONDS} s of CPU (the shipped "
            "template takes a fraction of a second): does its CSS make many pages or huge boxes?"
        )
    if done.returncode != 0:  # an error of WeasyPrint's, or an allocation past the memory limit
        said = done.stderr.decode(errors="replace").strip().splitlines()
        why = said[-1][:300] if said else f"it stopped with {done.returncode}"
        raise RenderError(f"WeasyPrint could not lay out {label} as a PDF: {why}")
    return layouts_from_json(done.stdout.decode())
