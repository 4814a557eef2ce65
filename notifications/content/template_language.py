"""The template language of the customer emails: what the shipped templates under
notifications/templates/notifications/email/ use, and nothing else.

Email templates are written by people in the admin and rendered inside an admin request and
in the workers, so Django's whole language is too much: `{% lorem 99999999 %}`,
`|ljust:"999999999"` or nested `{% for %}` render gigabytes from a few bytes. The engine of
render.py is built from this library alone, without Django's built-in tags and filters, so
anything else fails to compile wherever a template is rendered (saved, previewed, published,
test-sent or sent). `template_language_refusals` names what a text uses beyond the list, so
the editor reads the tag or filter, not Django's vaguer "did you forget to load it?".

Two options of the allowed tags are refused as well: a value stored with `{% translate … as
x %}` or `{% blocktranslate … asvar x %}` can be repeated by the next one, each step
multiplying the size (ten steps of ten repetitions: 10^10 characters).

What was bought needs a loop, so `{% for %}` is allowed in a bounded form: over one of the
order's lists named in LOOPABLE (each bounded by the API: at most 250 lines, 20 discounts, an
address's few lines), and never inside another `{% for %}`. A loop then repeats its body at most
250 times, and the template's own size cap (render_limits.py) bounds the body: the size grows
by a factor, never by a power. `{% if %}` repeats nothing.

The invoices' template (notifications/documents/template_language.py) is the same language
over other lists and without layouts: `library_of` builds each from the same tags."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from django.template import Context, Library, Node, TemplateSyntaxError
from django.template.base import Lexer, NodeList, Parser, Token, TokenType, Variable
from django.template.defaulttags import ForNode, do_for, do_if, load
from django.template.loader_tags import do_block, do_extends
from django.templatetags.i18n import TranslateNode, do_block_translate, do_translate
from django.utils import translation

from notifications.content.render_limits import PART_MAX_CHARS

LAYOUTS = ("notifications/email/base.txt", "notifications/email/base.html")
# `trans` and `blocktrans` are Django's older names of the same two tags.
COMMON_TAGS = ("load", "translate", "trans", "blocktranslate", "blocktrans", "if", "for")
LAYOUT_TAGS = ("extends", "block")  # a language with layouts (library_of)
ALLOWED_TAGS = COMMON_TAGS + LAYOUT_TAGS
CLOSING_WORDS = ("endblock", "endblocktranslate", "endblocktrans", "plural", "elif", "else", "empty")
# The lists a `{% for %}` may go over, each with a bound the API enforces (orders/content.py).
LOOPABLE = (
    "order.lines",
    "order.discounts",
    "order.shipping_address",
    "order.billing_address",
    "shipment.lines",
    "refund.lines",
    "edit.added",
    "edit.removed",
    "edit.changed",
    "cancellation.refunds",
)
ALLOWED_FILTERS: tuple[str, ...] = ()  # the shipped templates use none
ALLOWED_SUMMARY = (
    "{% load i18n %}, {% extends %} of notifications/email/base.txt or base.html, {% block %}, "
    "{% translate %} and {% blocktranslate %}, {% if %}, {% for %} over "
    + ", ".join(LOOPABLE)
    + " (not nested), variables, and no filters"
)
_QUOTED = re.compile(r""""[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'""")
_FILTER = re.compile(r"\|\s*(\w+)")


@dataclass(frozen=True)
class TemplateLanguage:
    """One restricted language, as its engine (content/template_engine.py) and its refusals need
    it: the module whose `register` holds its only tags, and the words of its errors."""

    library: str  # dotted path of a module of `library_of`'s tags
    allowed_tags: tuple[str, ...]
    summary: str  # what a template may use, in the refusal's words
    what: str  # "email": "an email template may not use ..."
    values_doc: str  # where the values a template can use are listed
    rendered_max_chars: int  # per rendered part


def library_of(what: str, loopable: tuple[str, ...], *, layouts: tuple[str, ...]) -> Library:
    """The tags of a language: `{% for %}` over `loopable` only, `{% extends %}` of `layouts`
    only (with `{% block %}`; neither without layouts), translations that store nothing."""
    library = Library()
    library.tag("load", load)  # only `i18n` is a library of the engine, and it is this one
    library.tag("if", do_if)
    library.tag("for", _bounded_for(what, loopable))
    for name in ("translate", "trans"):
        library.tag(name, _translate_unstored(what))
    for name in ("blocktranslate", "blocktrans"):
        library.tag(name, _blocktranslate_unstored(what))
    if layouts:
        library.tag("block", do_block)
        library.tag("extends", _extends_layout(what, layouts))
    return library


def _extends_layout(what: str, layouts: tuple[str, ...]) -> Callable[[Parser, Token], Node]:
    def extends_layout(parser: Parser, token: Token) -> Node:
        """Only the shared layouts, named literally: their blocks are empty, so `{{ block.super }}`
        adds nothing, and no other template (the admin's among them) becomes part of an email."""
        bits = token.split_contents()
        name = bits[1] if len(bits) == 2 else ""
        if not (len(name) > 2 and name[0] == name[-1] and name[0] in "'\"" and name[1:-1] in layouts):
            named = " or ".join(f'"{layout}"' for layout in layouts)
            raise TemplateSyntaxError(
                f"{{% {token.contents} %}}: an {what} template may extend only {named}, named in quotes."
            )
        return do_extends(parser, token)

    return extends_layout


def _bounded_for(what: str, loopable: tuple[str, ...]) -> Callable[[Parser, Token], Node]:
    def for_bounded(parser: Parser, token: Token) -> Node:
        """Over one of the bounded lists, and not inside another loop (the inner loop is parsed
        first, so the outer one finds it in its body)."""
        node = do_for(parser, token)
        assert isinstance(node, ForNode)
        sequence = getattr(node.sequence, "var", None)  # a Variable, or the value of a literal
        if not isinstance(sequence, Variable) or sequence.var not in loopable:
            raise TemplateSyntaxError(
                f"{{% {token.contents} %}}: an {what} template may loop only over {', '.join(loopable)}."
            )
        bodies = [body for body in (node.nodelist_loop, node.nodelist_empty) if isinstance(body, NodeList)]
        if any(body.get_nodes_by_type(ForNode) for body in bodies):
            raise TemplateSyntaxError(
                f"{{% {token.contents} %}}: an {what} template may not put a loop inside another loop "
                "(nested loops are how a template grows without bound)."
            )
        return node

    return for_bounded


def _translate_unstored(what: str) -> Callable[[Parser, Token], Node]:
    def translate_unstored(parser: Parser, token: Token) -> Node:
        _stored_value_refuse(token, "as", token.split_contents()[2:], what)
        node = do_translate(parser, token)
        assert isinstance(node, TranslateNode)
        if _is_plain_literal(node):
            return TranslateLiteralNode(node.filter_expression, node.noop)
        return node

    return translate_unstored


class TranslateLiteralNode(TranslateNode):
    """`{% translate "words" %}`: its output depends on the language alone (a literal is safe,
    so never escaped), so a process looks it up once per language. Django's lookup goes
    through a lazy string and the thread's active language each time; for the 20-odd
    literals of a confirmation that was about a tenth of every email's render."""

    def render(self, context: Context) -> str:
        return _literal_translated(self, translation.get_language())

    def render_uncached(self, context: Context) -> str:
        return str(super().render(context))


@lru_cache(maxsize=4096)  # the nodes of the compiled templates (render.py keeps 256) x languages
def _literal_translated(node: TranslateLiteralNode, language: str | None) -> str:
    with translation.override(language):
        return node.render_uncached(Context())


def _is_plain_literal(node: TranslateNode) -> bool:
    """A literal without filters, context or `noop`: what TranslateLiteralNode may cache."""
    variable = node.filter_expression.var
    return (
        not node.noop
        and node.asvar is None
        and node.message_context is None
        and not node.filter_expression.filters
        and isinstance(variable, Variable)
        and isinstance(variable.literal, str)
    )


def _blocktranslate_unstored(what: str) -> Callable[[Parser, Token], Node]:
    def blocktranslate_unstored(parser: Parser, token: Token) -> Node:
        _stored_value_refuse(token, "asvar", token.split_contents()[1:], what)
        return do_block_translate(parser, token)

    return blocktranslate_unstored


def _stored_value_refuse(token: Token, option: str, options: list[str], what: str) -> None:
    if option in options:
        raise TemplateSyntaxError(
            f"{{% {token.contents} %}}: an {what} template may not store a value with '{option}' "
            "(repeating stored values is how a template grows without bound); write the words in place."
        )


def template_language_refusals(template_text: str, allowed_tags: tuple[str, ...] = ALLOWED_TAGS) -> list[str]:
    """Each tag and filter of the text that the language may not use, with its first line.
    (An end tag is not named: its tag is, and a stray one is Django's error to report.)"""
    refused: dict[str, int | None] = {}
    for token in Lexer(template_text).tokenize():
        command = token.contents.split()[0] if token.contents.strip() else ""
        if token.token_type == TokenType.BLOCK and _is_refused_tag(command, allowed_tags):
            refused.setdefault(f"{{% {command} %}}", token.lineno)
        if token.token_type in (TokenType.BLOCK, TokenType.VAR):
            for name in _FILTER.findall(_QUOTED.sub('""', token.contents)):
                if name not in ALLOWED_FILTERS:
                    refused.setdefault(f"the filter |{name}", token.lineno)
    return [f"{what} (line {line})" for what, line in refused.items()]


def _is_refused_tag(command: str, allowed_tags: tuple[str, ...]) -> bool:
    return bool(command) and command not in allowed_tags + CLOSING_WORDS and not command.startswith("end")


register = library_of("email", LOOPABLE, layouts=LAYOUTS)
EMAIL_LANGUAGE = TemplateLanguage(
    library=__name__,
    allowed_tags=ALLOWED_TAGS,
    summary=ALLOWED_SUMMARY,
    what="email",
    values_doc="docs/email-content.md",
    rendered_max_chars=PART_MAX_CHARS,
)
