"""A long hot-path statement, run with PostgreSQL's own numbered placeholders.

psycopg turns a statement's `%(name)s` placeholders into PostgreSQL's `$1, $2, ...` at every
execution, and keeps the result only for statements of at most 4,096 bytes (psycopg 3.3,
`psycopg/_queries.py`, MAX_CACHED_STATEMENT_LENGTH). The worker's claim read is longer (a join
of five tables with a subquery per kind of email), so every claim parsed its text again: 53 µs
of each plain confirmation's worker CPU, measured with timeit against 0.27 µs for a cached
one. A statement written once with named placeholders is numbered here, once per process, and
a psycopg RawCursor (prepared_cursor(numbered=True)) sends the numbered text without parsing
it. Where that cursor is not used (prepared statements off, Django's query log on) the named
text runs as before."""

import re
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db.backends.utils import CursorWrapper

_NAMED = re.compile(r"%\((\w+)\)s")


class StatementTextError(ValueError):
    """A statement this module cannot number: a placeholder that is not `%(name)s`."""


@dataclass(frozen=True)
class NumberedStatement:
    named: str  # with `%(name)s` placeholders, as Django's cursors and psycopg's Cursor take it
    numbered: str  # the same with `$1, $2, ...`, as psycopg's RawCursor takes it
    names: tuple[str, ...]  # the value of `$n` is the one named names[n - 1]


def numbered_statement(named: str) -> NumberedStatement:
    """`named` with each distinct `%(name)s` numbered in order of first use; `%%` becomes `%`.
    Any other `%` (a positional `%s`, a stray one) is refused: the two texts would differ."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    numbered = _NAMED.sub(number, named)
    stray = numbered.replace("%%", "")
    if "%" in stray:
        after = stray[stray.index("%") :][:20]
        raise StatementTextError(
            f"A statement to number uses a '%' that is not a %(name)s placeholder: {after!r}"
        )
    return NumberedStatement(named=named, numbered=numbered.replace("%%", "%"), names=tuple(names))


def statement_execute(cursor: CursorWrapper, statement: NumberedStatement, values: dict[str, Any]) -> None:
    """Run `statement` with `values` (by name) on a cursor of prepared_cursor: numbered on a
    RawCursor, named on any other."""
    if isinstance(cursor.cursor, psycopg.RawCursor):
        cursor.execute(statement.numbered, [values[name] for name in statement.names])
    else:
        cursor.execute(statement.named, values)
