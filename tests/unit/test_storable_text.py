"""The characters no text column holds (infra/storable_text.py): found, named, and replaced in
text and in parsed JSON, and nothing else touched."""

import json

import pytest

from infra.storable_text import storable, storable_json, unstorable_character, unstorable_named


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Ada Lovelace", None),
        ("Zoë 😀 \ufffd \t\n", None),  # a pair joined by the parser is one character, and fine
        ("Ada\x00", "\x00"),
        ("Ada\ud800", "\ud800"),
        ("\udfff", "\udfff"),
        ("a\ud83d\ude00", "\ud83d"),  # two halves side by side in a str are still no character
    ],
)
def test_the_first_character_no_column_holds_is_found(text, found):
    assert unstorable_character(text) == found


def test_each_is_named_in_words():
    assert unstorable_named("\x00") == "U+0000 (NUL), which no text may hold"
    assert unstorable_named("\udc80").startswith("U+DC80, half of a UTF-16 pair on its own")


def test_each_is_replaced_and_the_result_is_utf8():
    text = storable("550\x00 no such \ud800user")
    assert text == "550\ufffd no such \ufffduser"
    text.encode()  # what could not be written now can


def test_every_string_of_a_parsed_document_keys_too_is_replaced_and_nothing_else():
    document = json.loads('{"a\\u0000": ["x\\ud800", 1, 2.5, null, true, {"b": "\\u00e9\\ud83d\\ude00"}]}')
    assert storable_json(document) == {"a\ufffd": ["x\ufffd", 1, 2.5, None, True, {"b": "é😀"}]}
