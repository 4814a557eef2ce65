"""A killed test run's vhost and database are removed by a later run, once old and idle; a
run still going (connected) or started lately is never touched (tests/stale_runs.py)."""

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from kombu import Connection

from infra.rabbitmq import RabbitAdmin, broker_url_with_vhost, user_of
from tests.stale_runs import STALE_AFTER_SECONDS, stale_databases_drop, stale_vhosts_delete
from tools.drill.processes import database_url

OLD = int(time.time()) - STALE_AFTER_SECONDS - 60
RECENT = int(time.time()) - 60


@pytest.fixture
def admin(broker):
    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    made = [f"orders-test-{OLD}_a1b2c3-gw0", f"orders-test-{OLD}_d4e5f6", f"orders-test-{RECENT}_a1b2c3"]
    for name in made:
        admin.vhost_ensure(name, user=user_of(settings.CELERY_BROKER_URL))
    yield admin
    for name in made:
        admin.vhost_delete(name)


def test_an_old_idle_vhost_goes_a_connected_or_recent_one_stays(admin):
    # given: a run that started long ago and is still connected
    busy = f"orders-test-{OLD}_d4e5f6"
    with Connection(broker_url_with_vhost(settings.CELERY_BROKER_URL, busy)) as held:
        held.connect()
        _connections_shown(admin, busy)
        # when
        deleted = stale_vhosts_delete(admin)
    # then
    assert f"orders-test-{OLD}_a1b2c3-gw0" in deleted
    assert busy not in deleted
    assert f"orders-test-{RECENT}_a1b2c3" not in deleted
    assert settings.CELERY_BROKER_URL.rsplit("/", 1)[-1] not in deleted  # this run's own
    names = admin.vhost_names()
    assert f"orders-test-{OLD}_a1b2c3-gw0" not in names
    assert busy in names


def _connections_shown(admin: RabbitAdmin, vhost: str) -> None:
    # The management API's figures lag the broker by its stats interval.
    deadline = time.monotonic() + 15
    while admin.vhost_connections(vhost) == 0:
        assert time.monotonic() < deadline, "the management API never showed the connection"
        time.sleep(0.2)


def _url(name: str) -> str:
    db = connection.settings_dict
    return database_url(
        name,
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "",
        password=db["PASSWORD"] or "",
    )


@pytest.mark.django_db
def test_an_old_idle_test_database_is_dropped_one_in_use_or_recent_stays():
    maintenance = _url("postgres")
    old, busy, recent = (
        f"test_orders_{OLD}_a1b2c3_gw1",
        f"test_orders_{OLD}_d4e5f6",
        f"test_orders_{RECENT}_a1b2c3",
    )
    with psycopg.connect(maintenance, autocommit=True) as admin_connection:
        for name in (old, busy, recent):
            admin_connection.execute(f'CREATE DATABASE "{name}"')
        try:
            with psycopg.connect(_url(busy)):
                # when
                dropped = stale_databases_drop(maintenance)
            # then
            assert (old in dropped, busy in dropped, recent in dropped) == (True, False, False)
            left = {row[0] for row in admin_connection.execute("SELECT datname FROM pg_database")}
            assert old not in left
            assert {busy, recent} <= left
            assert connection.settings_dict["NAME"] in left  # this run's own
        finally:
            for name in (old, busy, recent):
                admin_connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
