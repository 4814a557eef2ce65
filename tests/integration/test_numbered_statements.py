"""The claim's read runs numbered on psycopg's RawCursor (no placeholder parsing in the
worker) and reads what its named text reads on every other cursor."""

import uuid

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from psycopg import _queries

from infra.numbered_statements import numbered_statement, statement_execute
from infra.prepared import prepared_cursor
from notifications.delivery.claim_read import _CLAIM_READ, ClaimKey, claim_reads
from tests.factories import NotificationFactory

pytestmark = pytest.mark.django_db

PERCENT = numbered_statement("SELECT '100%%' || %(x)s::text, %(y)s::int + %(y)s::int")


def test_the_claim_read_is_longer_than_what_psycopg_keeps_parsed():
    # Why the claim read is numbered: psycopg parses a longer statement at every execution.
    # If this fails, psycopg's limit or the statement changed: numbering may no longer pay.
    assert len(_CLAIM_READ.named.encode()) > _queries.MAX_CACHED_STATEMENT_LENGTH


def test_a_numbered_cursor_is_a_raw_cursor_and_runs_the_numbered_text():
    with transaction.atomic(), prepared_cursor(numbered=True) as cursor:
        assert isinstance(cursor.cursor, psycopg.RawCursor)
        statement_execute(cursor, PERCENT, {"x": "a", "y": 20})
        assert cursor.fetchall() == [("100%a", 40)]


def test_a_logged_cursor_runs_the_named_text(settings):
    with CaptureQueriesContext(connection) as queries, prepared_cursor(numbered=True) as cursor:
        assert not isinstance(cursor.cursor, psycopg.RawCursor)
        statement_execute(cursor, PERCENT, {"x": "b", "y": 1})
        assert cursor.fetchall() == [("100%b", 2)]
    assert "'100%' || 'b'" in queries.captured_queries[-1]["sql"]


def test_without_prepared_statements_the_named_text_runs_as_django_sends_it(settings):
    settings.DATABASE_PREPARED_STATEMENTS = False
    with prepared_cursor(numbered=True) as cursor:
        statement_execute(cursor, PERCENT, {"x": "c", "y": 3})
        assert cursor.fetchall() == [("100%c", 6)]


def test_the_claim_read_numbered_reads_what_the_named_one_reads(settings):
    notifications = [NotificationFactory.create(), NotificationFactory.create()]
    keys = [ClaimKey(n.order_id, n.kind, uuid.uuid4(), "k", n.subject_id) for n in notifications]
    with transaction.atomic():
        numbered = claim_reads(keys, provider="resend", fallback="brevo")
    settings.DATABASE_PREPARED_STATEMENTS = False
    with transaction.atomic():
        named = claim_reads(keys, provider="resend", fallback="brevo")
    assert sorted(numbered) == sorted(named) == [0, 1]
    for position, notification in enumerate(notifications):
        for read in (numbered[position], named[position]):
            assert read.notification.pk == notification.pk
            assert read.order.pk == notification.order_id
        assert numbered[position].order.__dict__.keys() == named[position].order.__dict__.keys()
        assert _fields(numbered[position]) == _fields(named[position])


def _fields(read) -> tuple:
    order = {f.attname: getattr(read.order, f.attname) for f in read.order._meta.concrete_fields}
    notification = {
        f.attname: getattr(read.notification, f.attname) for f in read.notification._meta.concrete_fields
    }
    return (
        order,
        notification,
        read.processed,
        read.suppression_id,
        read.template_id,
        read.content,
        read.about,
        read.shop,
        read.documents_unrendered,
        read.circuits,
    )
