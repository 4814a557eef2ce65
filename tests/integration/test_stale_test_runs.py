"""A killed test run's vhost and database are removed by a later run, once old and idle; a
run still going (connected) or started lately is never touched (tests/stale_runs.py)."""

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from kombu import Connection

from infra.rabbitmq import RabbitAdmin, broker_url_with_vhost, user_of
from tests.stale_runs import (
    STALE_AFTER_SECONDS,
    run_leftovers_remove,
    stale_databases_drop,
    stale_vhosts_delete,
)
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
def test_an_old_test_database_is_dropped_once_idle_and_this_runs_own_stays():
    # One database made (each CREATE DATABASE copies a template: seconds on a busy server).
    maintenance = _url("postgres")
    old = f"test_orders_{OLD}_a1b2c3_gw1"
    with psycopg.connect(maintenance, autocommit=True) as admin_connection:
        admin_connection.execute(f'CREATE DATABASE "{old}"')
        try:
            # when: a run still connected to it
            with psycopg.connect(_url(old)):
                dropped_while_connected = stale_databases_drop(maintenance)
            # and once nothing is
            dropped = stale_databases_drop(maintenance)
            # then
            assert old not in dropped_while_connected
            assert old in dropped
            left = {row[0] for row in admin_connection.execute("SELECT datname FROM pg_database")}
            assert old not in left
            assert connection.settings_dict["NAME"] in left  # this run's own: started now
        finally:
            admin_connection.execute(f'DROP DATABASE IF EXISTS "{old}"')


@pytest.mark.django_db
def test_a_parallel_runs_leftovers_go_at_its_end_and_no_other_runs(broker):
    # given: the databases and vhosts of the processes of a run that ended, and of another
    maintenance = _url("postgres")
    ended, other = f"{RECENT}_e0e0e0", f"{RECENT}_f1f1f1"
    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    vhosts = [f"orders-test-{ended}-gw0", f"orders-test-{ended}-gw1", f"orders-test-{other}-gw0"]
    for name in vhosts:
        admin.vhost_ensure(name, user=user_of(settings.CELERY_BROKER_URL))
    with psycopg.connect(maintenance, autocommit=True) as admin_connection:
        for name in (f"test_orders_{ended}_gw0", f"test_orders_{other}_gw0"):
            admin_connection.execute(f'CREATE DATABASE "{name}"')
        try:
            # when
            removed = run_leftovers_remove(admin, maintenance, run_id=ended)
            # then
            assert sorted(removed) == sorted([*vhosts[:2], f"test_orders_{ended}_gw0"])
            left = {row[0] for row in admin_connection.execute("SELECT datname FROM pg_database")}
            assert f"test_orders_{other}_gw0" in left
            assert f"test_orders_{ended}_gw0" not in left
            assert f"orders-test-{other}-gw0" in admin.vhost_names()
        finally:
            for name in (f"test_orders_{ended}_gw0", f"test_orders_{other}_gw0"):
                admin_connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            for name in vhosts:
                admin.vhost_delete(name)
