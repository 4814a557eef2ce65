"""Template text + values -> the email's subject, text part and HTML part.

Two Django template engines of our own (not the site's): the text one never HTML-escapes,
the HTML one always does; both render an undefined variable as a marker that turns into a
RenderError naming it, instead of the silent empty string a web page would get. Both know only
the tags of template_language.py, and every render keeps to the caps of render_limits.py.
The HTML's CSS is inlined with css-inline, the way mail clients need it, and remote
stylesheets are never fetched (an override cannot make a worker call out)."""

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import css_inline
from django.template import Context, Engine, Template
from django.utils import translation

from notifications.content.errors import RenderError
from notifications.content.render_limits import (
    RenderBudget,
    inline_work_check,
    part_size_check,
    template_size_check,
)
from notifications.content.sources import TEMPLATE_ROOT, TemplateSource
from notifications.content.template_language import ALLOWED_SUMMARY, template_language_refusals

UNDEFINED_MARKER = "\x00undefined:%s\x00"
UNDEFINED_FOUND = re.compile("\x00undefined:(.*?)\x00")
TEMPLATE_LANGUAGE = "notifications.content.template_language"
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
    return RenderedEmail(subject=subject, text=text, html=html)


def _render(
    source: TemplateSource, part: str, context: dict[str, Any], *, escape: bool, budget: RenderBudget
) -> str:
    template_text = getattr(source, part)
    template_size_check(template_text, part, source.label)
    _template_language_check(template_text, part, source.label)
    try:
        rendered = _compiled(template_text, escape).render(Context(context, autoescape=escape))
    except Exception as exc:  # a template is code a person wrote: any error is theirs to read
        raise RenderError(f"The {part} template of {source.label} does not render: {_describe(exc)}") from exc
    part_size_check(rendered, part, source.label)
    budget.check(f"its {part} part")
    undefined = sorted(set(UNDEFINED_FOUND.findall(rendered)))
    if undefined:
        names = ", ".join("{{ " + name + " }}" for name in undefined)
        raise RenderError(
            f"The {part} template of {source.label} uses {names}, which no email has "
            "(docs/email-content.md lists the values an email template can use)."
        )
    return rendered


def _template_language_check(template_text: str, part: str, label: str) -> None:
    refused = _refusals(template_text)
    if refused:
        raise RenderError(
            f"The {part} template of {label} uses {', '.join(refused)}, which an email template "
            f"may not use. It may use {ALLOWED_SUMMARY} (docs/email-content.md)."
        )


@lru_cache(maxsize=256)
def _refusals(template_text: str) -> tuple[str, ...]:
    """What a text uses beyond the language, once per text and process, like its compilation:
    tokenizing the shipped confirmation took more than a millisecond of every email's render."""
    return tuple(template_language_refusals(template_text))


@lru_cache(maxsize=256)
def _compiled(template_text: str, escape: bool) -> Template:
    return _engine(escape).from_string(template_text)


class _EmailEngine(Engine):
    # None of Django's built-in tags and filters: only template_language.py's allow-list exists.
    default_builtins = []  # Engine.__init__ adds these before `builtins`


@lru_cache(maxsize=2)
def _engine(escape: bool) -> Engine:
    return _EmailEngine(
        dirs=[str(TEMPLATE_ROOT)],
        autoescape=escape,
        debug=True,  # syntax errors carry their line
        string_if_invalid=UNDEFINED_MARKER,
        builtins=[TEMPLATE_LANGUAGE],
        libraries={"i18n": TEMPLATE_LANGUAGE},  # `{% load i18n %}`, as the shipped templates start
        loaders=[("django.template.loaders.cached.Loader", ["django.template.loaders.filesystem.Loader"])],
    )


def _describe(exc: Exception) -> str:
    where = getattr(exc, "template_debug", None)
    line = f" (line {where['line']}: {where['during'].strip()!r})" if where else ""
    return f"{exc}{line}"


def _subject_tidy(subject: str, source: TemplateSource) -> str:
    one_line = " ".join(subject.split())
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
