"""How big and how slow the render of one email may be, wherever it runs: the admin's save,
preview and publish, `send_test_email`, `email_preview`, and the workers. The invoice
template's HTML keeps to the same caps (its rendered size has its own, in
documents/template_language.py); its PDF layout is bounded by documents/template_check.py.

Each step is bounded before it runs, because no step can be stopped while it runs: a web
request's thread cannot take a signal, and css-inline is native code. The template language
has no loops, no filters and no stored values (template_language.py), so a part renders in
one pass over its text, to at most its size times the longest value; the text is capped, then
the result. Inlining CSS is the one step that grows with a product (every tag gets every
matching declaration: a 35 KB page of custom properties inlines to 42 MB in 4 s), so its
inputs are capped by that product before it runs. The CPU time of the whole render is checked
between the steps (settings.EMAIL_RENDER_MAX_CPU_SECONDS): CPU time of this thread, so a busy
machine does not fail an email that would render."""

import re
import time

from django.conf import settings

from notifications.content.errors import RenderError

TEMPLATE_MAX_CHARS = 50_000  # per part; the shipped layout and body together are under 4,000
PART_MAX_CHARS = 200_000  # per rendered part; Gmail cuts an HTML part off at 102 KB anyway
# Tags times characters of CSS: about the most inlining could write. The shipped layout is
# 73 tags (end tags counted) times 1,302 characters of CSS, 95,046: twenty times less.
INLINE_WORK_MAX = 2_000_000
_STYLE_SHEET = re.compile(r"<style\b[^>]*>(.*?)(?:</style|\Z)", re.S | re.I)


class RenderBudget:
    def __init__(self, label: str, *, what: str = "email"):
        self.label = label
        self.what = what
        self.limit = settings.EMAIL_RENDER_MAX_CPU_SECONDS
        self.started = time.thread_time()

    def check(self, step: str) -> None:
        spent = time.thread_time() - self.started
        if spent > self.limit:
            raise RenderError(
                f"Rendering {self.label} took {spent:.3f} s of CPU by the end of {step}; "
                f"an {self.what} may take at most {self.limit:g} s. Make the template shorter."
            )


def template_size_check(text: str, part: str, label: str, *, what: str = "email") -> None:
    if len(text) > TEMPLATE_MAX_CHARS:
        raise RenderError(
            f"The {part} template of {label} is {len(text):,} characters long; "
            f"an {what} template may have at most {TEMPLATE_MAX_CHARS:,}."
        )


def part_size_check(
    rendered: str,
    part: str,
    label: str,
    *,
    step: str = "renders to",
    what: str = "email",
    limit: int = PART_MAX_CHARS,
) -> None:
    if len(rendered) > limit:
        raise RenderError(
            f"The {part} part of {label} {step} {len(rendered):,} characters; an {what} part may "
            f"have at most {limit:,} (does the template repeat a value many times?)."
        )


def inline_work_check(html: str, label: str) -> None:
    tags = html.count("<")
    css = sum(len(sheet) for sheet in _STYLE_SHEET.findall(html))
    if tags * css > INLINE_WORK_MAX:
        raise RenderError(
            f"The HTML part of {label} has {tags:,} tags and {css:,} characters of CSS in <style>: "
            f"inlining the CSS into every tag could write {tags * css:,} characters (at most "
            f"{INLINE_WORK_MAX:,}). Use fewer tags or less CSS."
        )
