"""The nesting measure every JSON door asks before parsing (infra/json_nesting.py): exact for
valid JSON, whatever its strings hold, and never less than the parser would reach."""

import json

import pytest

from infra.json_nesting import MAX_JSON_NESTING, json_nesting, json_nesting_refusal


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("42", 0),
        ('"[[[["', 0),
        ("{}", 1),
        ('{"a": [1, {"b": [[]]}]}', 5),
        ('{"a": "]]]", "b": [["{{"]]}', 3),
        ('{"a": "\\"[[[", "b": []}', 2),  # an escaped quote does not end the string
        ('["\\\\", [[]]]', 3),  # an escaped backslash does, and what follows counts
        ('["\\u005d", [1]]', 2),
        ('"unterminated [[[[', 0),
        ("[" * 1000, 1000),  # unbalanced: the parser would descend this far before failing
        ("]]][[", 0),  # the parser stops at the first closer
    ],
)
def test_the_depth_is_what_the_parser_descends_to(text, depth):
    assert json_nesting(text) == depth


def test_it_agrees_with_the_parser_on_real_documents():
    document = {
        "type": "email.bounced",
        "data": {"to": ["a@example.com"], "tags": {"k": "[v]"}, "n": [[1], [2, [3]]]},
    }
    assert json_nesting(json.dumps(document)) == 5


def test_a_body_within_the_limit_passes_and_a_deeper_one_is_refused_with_its_depth():
    assert json_nesting_refusal("[" * MAX_JSON_NESTING + "]" * MAX_JSON_NESTING) is None
    assert (
        json_nesting_refusal("[" * 65 + "]" * 65)
        == "The JSON body nests 65 levels deep; at most 64 are accepted."
    )
