"""The invoice template's values: docs/orders.md lists exactly the values document_context gives
(a person writing the template in the admin has only that table to go by), each a plain string,
number or truth value, never a model a template could walk to the order, its shop or another
document; and the shipped template keeps to its language and its laid-out pages show every
legal element (WeasyPrint in this process, as for a real document of the shipped template)."""

import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, SHIPPED_DOCUMENT, TemplateSource
from notifications.content.template_language import template_language_refusals
from notifications.documents.context import DOCUMENT_CONTEXT_VARIABLES, document_context
from notifications.documents.layout import pdf_layout
from notifications.documents.legal_elements import LEGAL_ELEMENTS, legal_elements_check
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html
from notifications.documents.template_language import DOCUMENT_LANGUAGE

DOC = Path(__file__).resolve().parents[2] / "docs" / "orders.md"
SECTION = "### The invoice template in the admin"
ROW = re.compile(r"^\| `\{\{ ([\w.]+) \}\}` \|", re.M)


def _leaves(value: Any, name: str = "") -> dict[str, Any]:
    """Each dotted name down to a value that is not a dict; a list is a value (its items are
    checked by _plain)."""
    if isinstance(value, dict):
        found: dict[str, Any] = {}
        for key, item in value.items():
            found |= _leaves(item, f"{name}.{key}" if name else key)
        return found
    return {name: value}


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain(item) for key, item in value.items())
    return type(value) in (str, int, bool)


def _section() -> str:
    text = DOC.read_text()
    assert SECTION in text, f"docs/orders.md has no section {SECTION!r}"
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def test_the_doc_s_table_lists_exactly_the_context_variables():
    documented = ROW.findall(_section())
    assert sorted(documented) == sorted(DOCUMENT_CONTEXT_VARIABLES), "docs/orders.md's table differs"


@pytest.mark.parametrize("locale", ["en", "ru"])
def test_an_invoice_and_a_credit_note_give_exactly_the_documented_values_and_only_plain_ones(locale):
    for document in sample_documents(locale):
        leaves = _leaves(document_context(document))
        assert sorted(leaves) == sorted(DOCUMENT_CONTEXT_VARIABLES), document.kind
        assert all(_plain(value) for value in leaves.values()), leaves


def test_every_legal_element_is_a_documented_value_or_a_field_of_one():
    for name in LEGAL_ELEMENTS:
        assert DOCUMENT_CONTEXT_VARIABLES.keys() & {name, name.rsplit(".", 1)[0]}, name


@pytest.mark.parametrize("locale", ["en", "ru"])
def test_the_shipped_template_keeps_to_its_language_and_shows_every_legal_element(locale):
    text = SHIPPED_DOCUMENT.read_text()
    assert template_language_refusals(text, DOCUMENT_LANGUAGE.allowed_tags) == []
    source = TemplateSource(kind=DOCUMENT_KIND, locale=locale, subject="", text="", html=text)
    for document in sample_documents(locale):
        html = document_html(source, document)
        shown = pdf_layout(html).shown_text
        legal_elements_check(document, shown, source.label, sample=True)  # raises if one is left out
        with translation.override(locale):
            assert document.number_text in html


@pytest.mark.parametrize(
    ("template", "refused"),
    [
        ('{% extends "notifications/email/base.html" %}', "{% extends %} (line 1)"),
        ("{% block content %}{% endblock %}", "{% block %} (line 1)"),
        ("{{ document.number|upper }}", "the filter |upper (line 1)"),
    ],
)
def test_the_invoice_language_has_no_layouts_and_no_filters(template, refused):
    assert template_language_refusals(template, DOCUMENT_LANGUAGE.allowed_tags) == [refused]


@pytest.mark.parametrize(
    ("change", "left_out"),
    [
        (
            ("{{ document.issued_on }}", "{{ document.order_date }}"),
            "its date of issue ({{ document.issued_on }}:",
        ),
        (("{{ row.vat }}", ""), "the VAT per rate ({{ document.rates.vat }}: €4.76)"),
        (("{{ line.unit_price }}", "{{ line.total }}"), "each line's unit price excluding VAT"),
    ],
)
def test_a_template_that_leaves_out_a_legal_element_is_refused_naming_it(change, left_out):
    html = SHIPPED_DOCUMENT.read_text().replace(*change)
    source = TemplateSource(kind=DOCUMENT_KIND, locale="en", subject="", text="", html=html)
    invoice = sample_documents("en")[0]
    shown = pdf_layout(document_html(source, invoice)).shown_text
    with pytest.raises(RenderError, match="leaves out what the sample INV-000042 must show") as refused:
        legal_elements_check(invoice, shown, source.label, sample=True)
    assert left_out in str(refused.value)
