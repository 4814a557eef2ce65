"""A value a bidi override draws in a forced order, so that the PDF shows its characters
backwards while the text of its box still holds them in order: what the check of the page text
(notifications/documents/page_text.py, bidi_overrides.py) must not read; and the formatting
characters that only order whole runs, or an override whose scope ended, which it reads. Each
HTML is laid out by WeasyPrint in this process."""

import pytest

from notifications.documents.bidi_overrides import overridden_replaced
from notifications.documents.layout import pdf_layout
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"
HEBREW = "\u05d3\u05d5\u05d3 \u05db\u05d4\u05df"  # a customer's name, written right to left


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.parametrize(
    ("html", "value"),
    [
        (f"<p>&#x202E;VAT number: {VALUE}</p>", VALUE),
        (f"<p>&#x202D;{HEBREW}</p>", HEBREW),
        (f"<p>&#x202E;&#x202B;x&#x202C;{VALUE}</p>", VALUE),
        (f"<p>&#x202E;&#x2067;x&#x202C;&#x2069;{VALUE}</p>", VALUE),
    ],
    ids=[
        "right to left, well before it",
        "a right-to-left name drawn left to right",
        "after an embedding closed inside the override",
        "after an end of embedding inside an isolate, which closes none outside",
    ],
)
def test_a_value_an_override_draws_in_a_forced_order_is_not_read(html, value):
    assert not _shows(html, value)


@pytest.mark.parametrize(
    ("html", "value"),
    [
        (f"<p>&#x202E;abc&#x202C; {VALUE}</p>", VALUE),
        (f"<p>&#x2067;&#x202E;abc&#x2069;{VALUE}</p>", VALUE),
        (f"<p>&#x202E;&#x2066;{VALUE}&#x2069;</p>", VALUE),
        (f"<p style='white-space: pre-line'>&#x202E;abc\n{VALUE}</p>", VALUE),
        (f"<p>&#x202B;{VALUE}&#x202C; &#x2067;{HEBREW}&#x2069;</p>", VALUE),
        (f"<p>&#x202B;{VALUE}&#x202C; &#x2067;{HEBREW}&#x2069;</p>", HEBREW),
        (f"<p style='direction: rtl'>{HEBREW} {VALUE}</p>", VALUE),
    ],
    ids=[
        "an override closed before it",
        "an override closed with the isolate around it",
        "in an isolate inside an override",
        "an override ended by a line feed",
        "in an embedding",
        "a right-to-left name in an isolate",
        "in a right-to-left paragraph",
    ],
)
def test_a_value_drawn_in_its_own_order_is_read(html, value):
    assert _shows(html, value)


def test_an_override_draws_the_rest_of_its_line_only():
    # given: the value twice, the second on the next line, which WeasyPrint lays out anew
    html = f"<p style='width: 30mm'>VAT number &#x202E;{VALUE} {VALUE}</p>"
    # when
    shown = comparable_text(pdf_layout(html).shown_text)
    # then: the first, drawn backwards, is not read; the second is
    assert shown.count(comparable_text(VALUE)) == 1
    assert shown.endswith(comparable_text(VALUE))


def test_an_override_nested_too_deep_to_be_followed_hides_the_rest_of_its_paragraph():
    # UAX #9 ignores openings beyond level 125: where the scopes end is no longer followed
    text = "\u202a" * 70 + "\u202c" * 70 + VALUE
    assert VALUE not in overridden_replaced(text, "\0")
    assert overridden_replaced("\u202a" * 3 + "\u202c" * 3 + VALUE, "\0").endswith(VALUE)
