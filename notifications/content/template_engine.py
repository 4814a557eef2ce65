"""One template text written by a person + plain values -> text, in a restricted language
(template_language.py): the emails' parts (render.py) and the invoices' HTML
(documents/template.py) are rendered here.

Each language has two Django template engines of our own (not the site's): one never
HTML-escapes, the other always does; both render an undefined variable as a marker that turns
into a RenderError naming it, instead of the silent empty string a web page would get. An
engine knows only its language's tags, and every render keeps to the caps of render_limits.py."""

import re
from functools import lru_cache
from typing import Any

from django.template import Context, Engine, Template

from notifications.content.errors import RenderError
from notifications.content.render_limits import RenderBudget, part_size_check, template_size_check
from notifications.content.sources import TEMPLATE_ROOT
from notifications.content.template_language import TemplateLanguage, template_language_refusals

UNDEFINED_MARKER = "\x00undefined:%s\x00"
UNDEFINED_FOUND = re.compile("\x00undefined:(.*?)\x00")


def template_part_render(
    template_text: str,
    context: dict[str, Any],
    *,
    language: TemplateLanguage,
    part: str,
    label: str,
    escape: bool,
    budget: RenderBudget,
) -> str:
    """`part` of the template called `label` in errors (the subject, the html, ...)."""
    template_size_check(template_text, part, label, what=language.what)
    _template_language_check(template_text, part, label, language)
    try:
        rendered = _compiled(template_text, language, escape).render(Context(context, autoescape=escape))
    except Exception as exc:  # a template is code a person wrote: any error is theirs to read
        raise RenderError(f"The {part} template of {label} does not render: {_describe(exc)}") from exc
    part_size_check(rendered, part, label, what=language.what, limit=language.rendered_max_chars)
    budget.check(f"its {part} part")
    undefined = sorted(set(UNDEFINED_FOUND.findall(rendered)))
    if undefined:
        names = ", ".join("{{ " + name + " }}" for name in undefined)
        raise RenderError(
            f"The {part} template of {label} uses {names}, which no {language.what} has "
            f"({language.values_doc} lists the values an {language.what} template can use)."
        )
    return rendered


def _template_language_check(template_text: str, part: str, label: str, language: TemplateLanguage) -> None:
    refused = _refusals(template_text, language)
    if refused:
        raise RenderError(
            f"The {part} template of {label} uses {', '.join(refused)}, which an {language.what} template "
            f"may not use. It may use {language.summary} ({language.values_doc})."
        )


@lru_cache(maxsize=256)
def _refusals(template_text: str, language: TemplateLanguage) -> tuple[str, ...]:
    """What a text uses beyond the language, once per text and process, like its compilation:
    tokenizing the shipped confirmation took more than a millisecond of every email's render."""
    return tuple(template_language_refusals(template_text, language.allowed_tags))


@lru_cache(maxsize=256)
def _compiled(template_text: str, language: TemplateLanguage, escape: bool) -> Template:
    return engine(language, escape).from_string(template_text)


class _RestrictedEngine(Engine):
    # None of Django's built-in tags and filters: only the language's allow-list exists.
    default_builtins = []  # Engine.__init__ adds these before `builtins`


@lru_cache(maxsize=8)
def engine(language: TemplateLanguage, escape: bool) -> Engine:
    return _RestrictedEngine(
        dirs=[str(TEMPLATE_ROOT)],  # the layouts a language may extend
        autoescape=escape,
        debug=True,  # syntax errors carry their line
        string_if_invalid=UNDEFINED_MARKER,
        builtins=[language.library],
        libraries={"i18n": language.library},  # `{% load i18n %}`, as the shipped templates start
        loaders=[("django.template.loaders.cached.Loader", ["django.template.loaders.filesystem.Loader"])],
    )


def _describe(exc: Exception) -> str:
    where = getattr(exc, "template_debug", None)
    line = f" (line {where['line']}: {where['during'].strip()!r})" if where else ""
    return f"{exc}{line}"
