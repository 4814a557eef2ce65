"""Free text a person or a provider wrote that may quote a customer (an operator's comment, an
error's words): the quoted address, names and street replaced in the database, by one UPDATE,
so the rest of the text (what was done, why) stays readable. A word is matched whole, in any
case: "Ada" in "Ms Ada Lovelace", not in "metadata"."""

import re
from collections.abc import Iterable, Sequence

from django.db.models import F, Func, Q, QuerySet, Value
from django.db.models.expressions import Combinable

ERASED = "(erased)"


def text_scrubbed(field: str, words: Iterable[str]) -> Combinable:
    """`field` with every occurrence of each word, in any case, replaced by "(erased)"."""
    expression: Combinable = F(field)
    for word in _longest_first(words):
        expression = Func(
            expression, Value(_whole(word)), Value(ERASED), Value("gi"), function="regexp_replace"
        )
    return expression


def text_quotes(field: str, words: Iterable[str]) -> Q:
    """Rows whose `field` quotes any of the words, in any case."""
    query = Q(pk__in=[])
    for word in _longest_first(words):
        query |= Q(**{f"{field}__iregex": _whole(word)})
    return query


def text_erase(
    rows: QuerySet, fields: Sequence[str], *, mine: Q, words: list[str], elsewhere: list[str]
) -> int:
    """The customer's words replaced in the rows that are theirs (`mine`: of their orders), and
    only `elsewhere` (their address) in every other row: a part of a name ("Paid", "EUR") is a
    word of anybody's text too. Returns how many rows changed."""
    changed = 0
    for scope, scrubbed in ((rows.filter(mine), words), (rows.exclude(mine), elsewhere)):
        quoting = Q(pk__in=[])
        for field in fields:
            quoting |= text_quotes(field, scrubbed)
        changed += scope.filter(quoting).update(**{field: text_scrubbed(field, scrubbed) for field in fields})
    return changed


def _whole(word: str) -> str:
    """The word as a PostgreSQL regular expression that matches it whole (\\y: a word's edge,
    where the word starts or ends with a letter or a digit)."""
    start = r"\y" if word[0].isalnum() else ""
    end = r"\y" if word[-1].isalnum() else ""
    return f"{start}{re.escape(word)}{end}"


def _longest_first(words: Iterable[str]) -> list[str]:
    """A name inside an address is replaced after the address, not within it; words of fewer
    than 3 characters are not replaced (they would match inside any text)."""
    return sorted({word.strip() for word in words if len(word.strip()) >= 3}, key=len, reverse=True)
