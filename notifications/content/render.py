"""Template text + values -> the email's subject, text part and HTML part.

Two Django template engines of our own (not the site's): the text one never HTML-escapes,
the HTML one always does; both render an undefined variable as a marker that turns into a
RenderError naming it, instead of the silent empty string a web page would get. The HTML's
CSS is inlined with css-inline, the way mail clients need it, and remote stylesheets are never
fetched (an override cannot make a worker call out)."""

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
from notifications.content.sources import TEMPLATE_ROOT, TemplateSource

UNDEFINED_MARKER = "\x00undefined:%s\x00"
UNDEFINED_FOUND = re.compile("\x00undefined:(.*?)\x00")
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
    with translation.override(source.locale):
        subject = _subject_tidy(_render(source, "subject", context, escape=False), source)
        with_subject = {**context, "subject": subject}
        text = _text_tidy(_render(source, "text", with_subject, escape=False))
        html = _render(source, "html", with_subject, escape=True)
    if not text.strip():
        raise RenderError(f"The text part of {source.label} is empty: every email needs one.")
    try:
        html = _INLINER.inline(html)
    except ValueError as exc:
        raise RenderError(f"The CSS of {source.label} cannot be inlined: {exc}") from exc
    return RenderedEmail(subject=subject, text=text, html=html)


def _render(source: TemplateSource, part: str, context: dict[str, Any], *, escape: bool) -> str:
    try:
        rendered = _compiled(getattr(source, part), escape).render(Context(context, autoescape=escape))
    except Exception as exc:  # a template is code a person wrote: any error is theirs to read
        raise RenderError(f"The {part} template of {source.label} does not render: {_describe(exc)}") from exc
    undefined = sorted(set(UNDEFINED_FOUND.findall(rendered)))
    if undefined:
        names = ", ".join("{{ " + name + " }}" for name in undefined)
        raise RenderError(
            f"The {part} template of {source.label} uses {names}, which no email has "
            "(docs/email-content.md lists the values an email template can use)."
        )
    return rendered


@lru_cache(maxsize=256)
def _compiled(template_text: str, escape: bool) -> Template:
    return _engine(escape).from_string(template_text)


@lru_cache(maxsize=2)
def _engine(escape: bool) -> Engine:
    return Engine(
        dirs=[str(TEMPLATE_ROOT)],
        autoescape=escape,
        debug=True,  # syntax errors carry their line
        string_if_invalid=UNDEFINED_MARKER,
        libraries={"i18n": "django.templatetags.i18n"},
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
