"""How deeply a JSON text nests, measured before anything parses it.

Python's json parser recurses once per nested array or object: a small body nested about a
thousand levels deep raises RecursionError (a 500), and code that walks the parsed value
recursively fails the same way a little earlier. Every door that reads JSON from outside (the
order API's parser, every delivery webhook, whose views parse inside Anymail or svix) asks
this module first and refuses such a body with a 400 and the reason.

The measure runs at C speed (regular expressions, `map`, `itertools.accumulate`): about as
long as parsing the same text, so refusing first costs no more than the parse it prevents.
"""

import re
from itertools import accumulate, chain, count
from operator import sub

# Orders are flat and the providers' events nest five or six levels; 64 leaves room and
# stays far below the parser's recursion limit.
MAX_JSON_NESTING = 64

# A JSON string, escapes included. An unterminated one runs to the end (the parser refuses
# it there), so the pattern never fails part-way and never scans the same text twice.
_STRING = re.compile(r'"(?:[^"\\]+|\\.)*"?', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
# Each opener counts 2 and each closer 0: after n brackets the running sum minus n is the
# nesting at that point (arrays and objects nest alike).
_WEIGHTS = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})


def json_nesting(text: str) -> int:
    """The deepest nesting the parser would descend to (for valid JSON, exactly its depth;
    for invalid JSON at least the depth the parser reaches before it gives up)."""
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text)).translate(_WEIGHTS).encode("latin-1")
    return max(chain((0,), map(sub, accumulate(brackets), count(1))))


def json_nesting_refusal(text: str, *, limit: int = MAX_JSON_NESTING) -> str | None:
    """Why this JSON text is refused unread, or None if it may be parsed."""
    depth = json_nesting(text)
    if depth <= limit:
        return None
    return f"The JSON body nests {depth} levels deep; at most {limit} are accepted."
