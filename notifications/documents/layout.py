"""A document's HTML laid out to PDF by WeasyPrint, fetching nothing: WeasyPrint's own fetcher
would read any http(s), file: or data: address the HTML named (an image's, a stylesheet's, an
@import's, a font's, an attachment's), and the refused ones are reported instead. With the PDF
comes the text its pages show (page_text.py), read from the same layout, which the check of the
legal elements compares (legal_elements.py).

It runs in the process for a document rendered from the shipped template, and in a child
process (layout_child.py) for any HTML written in the admin: a draft's samples
(template_check.py), a version's preview and every real document it renders (template.py). A
layout cannot be stopped once it runs, and a few bytes of CSS (pages of 3 mm) lay out ten
thousand pages in minutes, so there it runs under a CPU limit, the reading of its pages too.
The child imports nothing of the project but this module, page_text.py and the modules it
names, and svg_text.py (no Django, no settings), and gets none of its environment's secrets."""

import base64
import json
import resource
import sys
from dataclasses import dataclass
from typing import Any

from notifications.documents.page_text import pages_shown_text
from notifications.documents.svg_text import svg_drawn_texts


@dataclass(frozen=True)
class Layout:
    pdf: bytes
    pages: int
    refused: tuple[str, ...]  # the addresses the HTML named, none of them fetched
    shown_text: str  # what its pages show (page_text.py)
    svg_texts: tuple[str, ...]  # what its inline SVG images draw as text (svg_text.py)


def pdf_layout(html: str) -> Layout:
    from weasyprint import HTML  # loads Pango: only in the processes that render one

    fetcher = _fetcher_refusing_all()
    parsed = HTML(string=html, url_fetcher=fetcher)
    document = parsed.render()
    shown_text = pages_shown_text(document)  # read before the paint, from the layout as it came
    return Layout(
        pdf=document.write_pdf(),
        pages=len(document.pages),
        refused=tuple(fetcher.refused),
        shown_text=shown_text,
        svg_texts=svg_drawn_texts(parsed.etree_element),
    )


def _fetcher_refusing_all() -> Any:
    from weasyprint.urls import URLFetcher, URLFetchingError

    class NothingFetched(URLFetcher):
        def __init__(self) -> None:
            super().__init__()
            self.refused: list[str] = []

        def fetch(self, url: str, headers: object = None) -> object:
            self.refused.append(url[:200])
            raise URLFetchingError(f"a document fetches nothing: {url[:80]}")

    return NothingFetched()


def layouts_as_json(layouts: list[Layout]) -> str:
    return json.dumps(
        [
            {
                "pdf": base64.b64encode(layout.pdf).decode(),
                "pages": layout.pages,
                "refused": layout.refused,
                "shown_text": layout.shown_text,
                "svg_texts": layout.svg_texts,
            }
            for layout in layouts
        ]
    )


def layouts_from_json(text: str) -> list[Layout]:
    return [
        Layout(
            pdf=base64.b64decode(item["pdf"]),
            pages=item["pages"],
            refused=tuple(item["refused"]),
            shown_text=item["shown_text"],
            svg_texts=tuple(item["svg_texts"]),
        )
        for item in json.loads(text)
    ]


def child_main(max_cpu_seconds: int, max_memory_bytes: int) -> None:
    """Lay out each HTML of the JSON list on stdin; write their layouts to stdout. Past the CPU
    limit the kernel stops the process (SIGXCPU), whatever WeasyPrint is doing; past the memory
    limit (its heap: the fonts' files mapped read-only do not count) an allocation fails."""
    resource.setrlimit(resource.RLIMIT_CPU, (max_cpu_seconds, max_cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_DATA, (max_memory_bytes, max_memory_bytes))
    htmls = json.loads(sys.stdin.read())
    sys.stdout.write(layouts_as_json([pdf_layout(html) for html in htmls]))
