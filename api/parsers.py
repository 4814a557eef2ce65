"""The API's JSON parser: Python's json accepts a lone UTF-16 surrogate ("\\ud800"), which is
no character. It cannot be stored in PostgreSQL nor written back as UTF-8 (an echoed field
name would turn a client's mistake into a 500), so it is refused at the door."""

from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    # Any JSON value: a body may be a list or a string too (DRF's stub says a dict).
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        data = super().parse(stream, media_type, parser_context)
        surrogate = _first_lone_surrogate(data)
        if surrogate is not None:
            raise ParseError(
                f"JSON parse error - the body contains a lone surrogate (\\u{ord(surrogate):04x}), "
                "which is not a character."
            )
        return data


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
