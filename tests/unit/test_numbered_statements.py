"""A statement written with named placeholders, numbered once for psycopg's RawCursor."""

import pytest

from infra.numbered_statements import StatementTextError, numbered_statement


def test_each_name_is_numbered_in_order_of_first_use_and_a_repeat_keeps_its_number():
    statement = numbered_statement("SELECT %(b)s, %(a)s::int[], %(b)s FROM t WHERE x = %(c)s")
    assert statement.numbered == "SELECT $1, $2::int[], $1 FROM t WHERE x = $3"
    assert statement.names == ("b", "a", "c")
    assert statement.named == "SELECT %(b)s, %(a)s::int[], %(b)s FROM t WHERE x = %(c)s"


def test_an_escaped_percent_is_a_plain_percent_in_the_numbered_text():
    statement = numbered_statement("SELECT '100%%' || %(x)s")
    assert statement.numbered == "SELECT '100%' || $1"


@pytest.mark.parametrize("text", ["SELECT %s", "SELECT '5%' || %(x)s", "SELECT %(x)d"])
def test_a_percent_that_is_not_a_named_placeholder_is_refused(text):
    with pytest.raises(StatementTextError, match="not a %\\(name\\)s placeholder"):
        numbered_statement(text)
