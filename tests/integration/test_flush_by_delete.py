"""A transactional test's end empties every table by DELETE (tests/flush_by_delete.py): the
rows go, the tables keep their files, and the foreign keys that let the tables be emptied in
any order are deferred."""

import pytest
from django.core.management import call_command
from django.db import connection

from orders.models import Order
from tests.factories import NotificationFactory, OrderFactory, staff_user


def _file_of(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relfilenode FROM pg_class WHERE oid = %s::regclass", [table])
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_every_foreign_key_is_deferred():
    # DELETE in one transaction empties referenced tables before their referrers only because
    # each key is checked at the commit; a key checked at once would fail the next flush.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, conname FROM pg_constraint "
            "WHERE contype = 'f' AND NOT (condeferrable AND condeferred) ORDER BY 1, 2"
        )
        checked_at_once = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'")
        keys = cursor.fetchone()[0]
    assert keys > 20, keys
    assert checked_at_once == []


@pytest.mark.django_db(transaction=True)
def test_a_flush_deletes_every_row_and_keeps_each_table_s_file():
    # given: rows in tables that refer to one another (a notification of an order, a user)
    NotificationFactory(order=OrderFactory())
    staff_user("flushed", reviewer=True)
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    files_before = {table: _file_of(table) for table in tables}
    # when: the flush as TransactionTestCase runs it at a test's end
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, allow_cascade=False)
    # then: every table is empty but those post_migrate fills again, and no table has a new file
    with connection.cursor() as cursor:
        filled = {}
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            filled[table] = cursor.fetchone()[0]
    assert {table for table, rows in filled.items() if rows} <= {"django_content_type", "auth_permission"}
    assert not Order.objects.exists()
    assert {table: _file_of(table) for table in tables} == files_before
