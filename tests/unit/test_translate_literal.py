"""A literal `{% translate "…" %}` is looked up once per language and process
(template_language.TranslateLiteralNode): what it renders must be what Django's own tag
renders, in every language and in both engines, whichever language rendered it first."""

import pytest
from django.template import Context, Engine, Template
from django.templatetags.i18n import TranslateNode
from django.utils import translation

from notifications.content.template_engine import engine
from notifications.content.template_language import EMAIL_LANGUAGE, TranslateLiteralNode

TEMPLATES = [
    '{% load i18n %}{% translate "Order number" %}',
    '{% load i18n %}{% translate "Order number" %} / {% translate "Shipping to" %}',
    "{% load i18n %}{% translate 'Fish & <chips> 100%' %}",
    '{% load i18n %}{% translate "May" context "month name" %}',
]


def _django_engine(escape: bool) -> Engine:
    return Engine(autoescape=escape, libraries={"i18n": "django.templatetags.i18n"})


@pytest.mark.parametrize("escape", [True, False])
@pytest.mark.parametrize("template_text", TEMPLATES)
def test_renders_what_djangos_tag_renders_in_each_language(template_text: str, escape: bool) -> None:
    ours = engine(EMAIL_LANGUAGE, escape).from_string(template_text)
    django_tag = _django_engine(escape).from_string(template_text)
    for language in ["ru", "en", "ru", "en"]:  # the first language's words must not stick
        with translation.override(language):
            assert ours.render(Context({}, autoescape=escape)) == django_tag.render(
                Context({}, autoescape=escape)
            ), language


def test_words_follow_the_language_of_each_render() -> None:
    template = engine(EMAIL_LANGUAGE, True).from_string('{% load i18n %}{% translate "Order number" %}')
    rendered = {}
    for language in ["en", "ru"]:
        with translation.override(language):
            rendered[language] = template.render(Context({}))
    assert rendered["en"] == "Order number"
    assert rendered["ru"] != rendered["en"]
    assert rendered["ru"].strip()


def test_only_a_plain_literal_is_cached() -> None:
    plain = engine(EMAIL_LANGUAGE, True).from_string('{% load i18n %}{% translate "Order number" %}')
    with_context = engine(EMAIL_LANGUAGE, True).from_string(
        '{% load i18n %}{% translate "May" context "month name" %}'
    )
    variable = engine(EMAIL_LANGUAGE, True).from_string("{% load i18n %}{% translate order.number %}")
    assert _translate_node_types(plain) == [TranslateLiteralNode]
    for template in (with_context, variable):
        assert _translate_node_types(template) == [TranslateNode]


def _translate_node_types(template: Template) -> list[type]:
    return [type(node) for node in template.nodelist if isinstance(node, TranslateNode)]
