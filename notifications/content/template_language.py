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
by a factor, never by a power. `{% if %}` repeats nothing."""

import re
from functools import lru_cache

from django.template import Context, Library, Node, TemplateSyntaxError
from django.template.base import Lexer, NodeList, Parser, Token, TokenType, Variable
from django.template.defaulttags import ForNode, do_for, do_if, load
from django.template.loader_tags import do_block, do_extends
from django.templatetags.i18n import TranslateNode, do_block_translate, do_translate
from django.utils import translation

LAYOUTS = ("notifications/email/base.txt", "notifications/email/base.html")
# `trans` and `blocktrans` are Django's older names of the same two tags.
ALLOWED_TAGS = (
    "load",
    "extends",
    "block",
    "translate",
    "trans",
    "blocktranslate",
    "blocktrans",
    "if",
    "for",
)
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

register = Library()
register.tag("load", load)  # only `i18n` is a library of the engine, and it is this one
register.tag("block", do_block)
register.tag("if", do_if)


@register.tag("extends")
def extends_layout(parser: Parser, token: Token) -> Node:
    """Only the shared layouts, named literally: their blocks are empty, so `{{ block.super }}`
    adds nothing, and no other template (the admin's among them) becomes part of an email."""
    bits = token.split_contents()
    name = bits[1] if len(bits) == 2 else ""
    if not (len(name) > 2 and name[0] == name[-1] and name[0] in "'\"" and name[1:-1] in LAYOUTS):
        raise TemplateSyntaxError(
            f"{{% {token.contents} %}}: an email template may extend only "
            f'"{LAYOUTS[0]}" or "{LAYOUTS[1]}", named in quotes.'
        )
    return do_extends(parser, token)


@register.tag("for")
def for_bounded(parser: Parser, token: Token) -> Node:
    """Over one of the order's bounded lists, and not inside another loop (the inner loop is
    parsed first, so the outer one finds it in its body)."""
    node = do_for(parser, token)
    assert isinstance(node, ForNode)
    sequence = getattr(node.sequence, "var", None)  # a Variable, or the value of a literal
    if not isinstance(sequence, Variable) or sequence.var not in LOOPABLE:
        raise TemplateSyntaxError(
            f"{{% {token.contents} %}}: an email template may loop only over {', '.join(LOOPABLE)}."
        )
    bodies = [body for body in (node.nodelist_loop, node.nodelist_empty) if isinstance(body, NodeList)]
    if any(body.get_nodes_by_type(ForNode) for body in bodies):
        raise TemplateSyntaxError(
            f"{{% {token.contents} %}}: an email template may not put a loop inside another loop "
            "(nested loops are how a template grows without bound)."
        )
    return node


@register.tag("translate")
@register.tag("trans")
def translate_unstored(parser: Parser, token: Token) -> Node:
    _stored_value_refuse(token, "as", token.split_contents()[2:])
    node = do_translate(parser, token)
    assert isinstance(node, TranslateNode)
    if _is_plain_literal(node):
        return TranslateLiteralNode(node.filter_expression, node.noop)
    return node


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


@register.tag("blocktranslate")
@register.tag("blocktrans")
def blocktranslate_unstored(parser: Parser, token: Token) -> Node:
    _stored_value_refuse(token, "asvar", token.split_contents()[1:])
    return do_block_translate(parser, token)


def _stored_value_refuse(token: Token, option: str, options: list[str]) -> None:
    if option in options:
        raise TemplateSyntaxError(
            f"{{% {token.contents} %}}: an email template may not store a value with '{option}' "
            "(repeating stored values is how a template grows without bound); write the words in place."
        )


def template_language_refusals(template_text: str) -> list[str]:
    """Each tag and filter of the text that email templates may not use, with its first line.
    (An end tag is not named: its tag is, and a stray one is Django's error to report.)"""
    refused: dict[str, int | None] = {}
    for token in Lexer(template_text).tokenize():
        command = token.contents.split()[0] if token.contents.strip() else ""
        if token.token_type == TokenType.BLOCK and _is_refused_tag(command):
            refused.setdefault(f"{{% {command} %}}", token.lineno)
        if token.token_type in (TokenType.BLOCK, TokenType.VAR):
            for name in _FILTER.findall(_QUOTED.sub('""', token.contents)):
                if name not in ALLOWED_FILTERS:
                    refused.setdefault(f"the filter |{name}", token.lineno)
    return [f"{what} (line {line})" for what, line in refused.items()]


def _is_refused_tag(command: str) -> bool:
    return bool(command) and command not in ALLOWED_TAGS + CLOSING_WORDS and not command.startswith("end")
