"""The beat-leader lock on the real database: one holder at a time, the lock free the moment
its holder's session ends, and a leader whose connection dies steps down instead of going
on as if it led. (tests/system/test_beat_failover.py does it with two real beat processes.)"""

import pytest
from django.db import connection

from messaging.beat.leader import LOCK_KEY, LeaderLock
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def _backend_of(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [f"beat-leader {name}"]
        )
        return cursor.fetchone()[0]


def _lock_holders() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
            "WHERE l.locktype = 'advisory' AND l.objid = %s AND l.granted",
            [LOCK_KEY],
        )
        return [row[0] for row in cursor.fetchall()]


def test_one_leader_at_a_time_and_the_next_takes_over_when_its_session_ends():
    first, second = LeaderLock("host-a:1"), LeaderLock("host-b:2")
    try:
        assert first.held()
        assert not second.held()
        assert _lock_holders() == ["beat-leader host-a:1"]
        first.release()  # the process exits: its session and its lock are gone
        # (the server ends the session a moment after the client left: the next poll wins)
        wait_until(second.held, timeout=5, interval=0.05, message="the second takes the lead")
        assert _lock_holders() == ["beat-leader host-b:2"]
    finally:
        first.release()
        second.release()


def test_a_leader_whose_connection_is_killed_steps_down_and_the_other_leads(monkeypatch):
    monkeypatch.setattr("messaging.beat.leader.CHECK_SECONDS", 0.0)  # check on every tick
    first, second = LeaderLock("host-a:1"), LeaderLock("host-b:2")
    try:
        assert first.held()
        with connection.cursor() as cursor:  # as PostgreSQL does to a client cut off by the network
            cursor.execute("SELECT pg_terminate_backend(%s)", [_backend_of("host-a:1")])
        assert not first.held()
        wait_until(second.held, timeout=5, interval=0.05, message="the second takes the lead")
        assert first.held() is False  # it asks again, and the lock is taken
    finally:
        first.release()
        second.release()


def test_the_lock_session_asks_the_server_for_keepalives():
    """So a leader cut off by the network loses the lock in seconds, not the server's hours."""
    lock = LeaderLock("host-a:1")
    try:
        assert lock.held()
        assert lock._wrapper is not None  # held: the lock's session is open
        with lock._wrapper.cursor() as cursor:  # the lock's own session settings
            cursor.execute("SHOW tcp_keepalives_idle")
            assert cursor.fetchone()[0] in ("5", "5s")
            cursor.execute("SHOW tcp_keepalives_count")
            assert cursor.fetchone()[0] == "3"
    finally:
        lock.release()
