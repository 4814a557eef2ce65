"""The email worker's sessions plan the hot path by key, whatever the tables' size when a
connection first prepared its statements (messaging/worker/key_lookup_plans.py).

The plans checked are the generic ones PostgreSQL keeps for a prepared statement, built in
the session with its own settings, on the tiny tables of a test: where an unconfigured
session reads the notification and attempt tables whole."""

from decimal import Decimal

import pytest
from django.db import connection

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from messaging.worker.key_lookup_plans import plans_by_key_wanted, session_plan_by_key
from orders.services import order_create
from tests.integration.test_costs import HOT_STATEMENTS  # the claim's read and write, the outcome

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

SCANNED_WHOLE = ("Seq Scan on notifications_notification", "Seq Scan on notifications_deliveryattempt")


def _generic_plan(fragment: str) -> str:
    """The generic plan of this session's prepared statement whose text has `fragment`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, cardinality(parameter_types) FROM pg_prepared_statements WHERE statement LIKE %s",
            [f"%{fragment}%"],
        )
        (name, parameters), *others = cursor.fetchall()
        assert not others, f"{fragment!r} prepared {1 + len(others)} times"
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        try:
            cursor.execute(f"EXPLAIN EXECUTE {name}({', '.join(['NULL'] * parameters)})")
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET plan_cache_mode")


def _emails_sent(count: int) -> None:
    delivery = Delivery(worker="plans pid 1", retries=0, max_retries=8)
    for n in range(count):
        order = order_create(customer_email=f"plan{n}@example.com", amount=Decimal("1.00"), currency="EUR")
        envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
        assert event_dispatch(raw_envelope=envelope, delivery=delivery) == "sent"


@pytest.fixture
def fresh_session():
    """A connection of its own for the test, closed after it: the session's settings and
    prepared statements go with it. The tables are small again first: the flush between
    tests deletes rows, and the planner sizes a table by the pages its file still holds
    (times the density last measured), so a table an earlier test filled would still plan
    as large. VACUUM gives the empty pages back and ANALYZE measures the tables as they are."""
    connection.close()
    connection.ensure_connection()
    _tables_vacuumed()
    yield connection
    connection.close()


def _tables_vacuumed() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT quote_ident(relname) FROM pg_stat_user_tables WHERE schemaname = 'public'")
        tables = [name for (name,) in cursor.fetchall()]
        cursor.execute(f"VACUUM (ANALYZE) {', '.join(tables)}")
        cursor.execute(
            "SELECT pg_relation_size('notifications_notification') / current_setting('block_size')::int"
        )
        (pages,) = cursor.fetchone()
    # VACUUM skips giving pages back while another session holds the table: then say so here
    assert pages <= 1, f"notifications_notification still holds {pages} pages after VACUUM"


def test_an_email_workers_session_finds_each_row_by_key_on_small_tables(mailsim, fresh_session):
    session_plan_by_key(fresh_session)
    _emails_sent(3)
    # every execution ran the kept plan: none was planned anew with its values
    assert {fragment: _plans_made(fragment) for fragment in HOT_STATEMENTS} == {
        fragment: {"generic": 3, "custom": 0} for fragment in HOT_STATEMENTS
    }
    for fragment in HOT_STATEMENTS:
        plan = _generic_plan(fragment)
        assert not any(scan in plan for scan in SCANNED_WHOLE), f"{fragment!r}:\n{plan}"
        assert "Index Scan" in plan, f"{fragment!r}:\n{plan}"


def _plans_made(fragment: str) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            [f"%{fragment}%"],
        )
        generic, custom = cursor.fetchone()
    return {"generic": generic, "custom": custom}


def test_without_it_the_same_statements_would_read_the_small_tables_whole(mailsim, fresh_session):
    """The other side: what the setting prevents is there, or the test above proves nothing."""
    _emails_sent(3)
    plans = "\n".join(_generic_plan(fragment) for fragment in HOT_STATEMENTS)
    assert all(scan in plans for scan in SCANNED_WHOLE), plans


@pytest.mark.parametrize(
    ("queues", "prepared", "kept", "wanted"),
    [
        (["orders.confirmations", "orders.maintenance"], True, True, True),  # an email worker
        (["orders.maintenance"], True, True, False),  # the relay: sweeps and reports over whole tables
        (["orders.confirmations"], False, True, False),  # statements not prepared
        (["orders.confirmations"], True, False, False),  # behind a pooler in transaction mode
    ],
)
def test_only_an_email_worker_whose_sessions_are_its_own_plans_by_key(queues, prepared, kept, wanted):
    assert plans_by_key_wanted(queues, prepared_statements=prepared, session_settings_kept=kept) is wanted
