"""The API's JSON parser, stricter than DRF's at the door:

- a body nested deeper than infra/json_nesting.py allows is refused unread: Python's parser
  (and the surrogate check below) would recurse once per level and fail with a 500;
- Python's json accepts a lone UTF-16 surrogate ("\\ud800"), which is no character. It cannot
  be stored in PostgreSQL nor written back as UTF-8 (an echoed field name would turn a
  client's mistake into a 500), so it is refused too."""

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from infra.json_nesting import json_nesting_refusal


class StrictJSONParser(JSONParser):
    # Any JSON value: a body may be a list or a string too (DRF's stub says a dict).
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        body = stream.read()  # at most API_MAX_BODY_BYTES (api/body_limit.py)
        refusal = _nesting_refusal(body, (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET)
        if refusal is not None:
            raise ParseError(f"JSON parse error - {refusal}")
        data = super().parse(io.BytesIO(body), media_type, parser_context)
        surrogate = _first_lone_surrogate(data)
        if surrogate is not None:
            raise ParseError(
                f"JSON parse error - the body contains a lone surrogate (\\u{ord(surrogate):04x}), "
                "which is not a character."
            )
        return data


def _nesting_refusal(body: bytes, encoding: str) -> str | None:
    try:
        text = body.decode(encoding)
    except (LookupError, UnicodeError):
        return None  # DRF's parse refuses the charset or the bytes itself, before parsing anything
    return json_nesting_refusal(text)


def _first_lone_surrogate(value: object) -> str | None:
    if isinstance(value, str):
        return next((char for char in value if "\ud800" <= char <= "\udfff"), None)
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    return next((found for item in items if (found := _first_lone_surrogate(item)) is not None), None)
