"""Template text + values -> the email's subject, text part and HTML part.

Each part is rendered by template_engine.py in the emails' language (template_language.py):
the text parts by its engine that never HTML-escapes, the HTML part by the one that always
does, each within the caps of render_limits.py. The HTML's CSS is inlined with css-inline,
the way mail clients need it, and remote stylesheets are never fetched (an override cannot
make a worker call out). No part carries a bidi formatting character (bidi_controls.py)."""

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import css_inline
from django.utils import translation

from notifications.content.bidi_controls import without_bidi_controls
from notifications.content.errors import RenderError
from notifications.content.render_limits import RenderBudget, inline_work_check, part_size_check
from notifications.content.sources import TemplateSource
from notifications.content.template_engine import template_part_render
from notifications.content.template_language import EMAIL_LANGUAGE

SUBJECT_MAX_CHARS = 200  # RFC 5322 allows 998 per line; inboxes show about 60
_INLINER = css_inline.CSSInliner(load_remote_stylesheets=False, keep_style_tags=False)


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    text: str
    html: str

    @property
    def content_hash(self) -> str:
        return content_hash(self.subject, self.text, self.html)


def content_hash(subject: str, text: str, html: str) -> str:
    return hashlib.sha256(json.dumps([subject, text, html]).encode()).hexdigest()


def email_render(source: TemplateSource, context: dict[str, Any]) -> RenderedEmail:
    budget = RenderBudget(source.label)
    with translation.override(source.locale):
        subject = _subject_tidy(_render(source, "subject", context, escape=False, budget=budget), source)
        with_subject = {**context, "subject": subject}
        text = _text_tidy(_render(source, "text", with_subject, escape=False, budget=budget))
        html = _render(source, "html", with_subject, escape=True, budget=budget)
    if not text.strip():
        raise RenderError(f"The text part of {source.label} is empty: every email needs one.")
    inline_work_check(html, source.label)
    try:
        html = _INLINER.inline(html)
    except ValueError as exc:
        raise RenderError(f"The CSS of {source.label} cannot be inlined: {exc}") from exc
    part_size_check(html, "html", source.label, step="is, with its CSS inlined,")
    budget.check("inlining its CSS")
    # Out of every part, values and wording alike (bidi_controls.py): the subject's are out
    # before its length is counted, and no other part can bring one back.
    return RenderedEmail(subject=subject, text=without_bidi_controls(text), html=without_bidi_controls(html))


def _render(
    source: TemplateSource, part: str, context: dict[str, Any], *, escape: bool, budget: RenderBudget
) -> str:
    return template_part_render(
        getattr(source, part),
        context,
        language=EMAIL_LANGUAGE,
        part=part,
        label=source.label,
        escape=escape,
        budget=budget,
    )


def _subject_tidy(subject: str, source: TemplateSource) -> str:
    one_line = " ".join(without_bidi_controls(subject).split())
    if not one_line:
        raise RenderError(f"The subject of {source.label} is empty.")
    if len(one_line) > SUBJECT_MAX_CHARS:
        raise RenderError(
            f"The subject of {source.label} is {len(one_line)} characters long; "
            f"keep it under {SUBJECT_MAX_CHARS}."
        )
    return one_line


def _text_tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"
