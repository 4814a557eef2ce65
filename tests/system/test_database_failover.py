"""The primary database dies and the same processes carry on: a PostgreSQL cluster of our own
(three nodes on Patroni with a synchronous standby, tools/drill/pg_cluster.py), reached as a
production client reaches one, through the multi-host DATABASE_URL alone.

The primary's PostgreSQL is SIGKILLed (a crash: Patroni lives on and fails over). Django's
connection in this process, used as a web process uses it (checked at the start of each
request, closed at its end if broken), writes again on the new primary without a restart; and
the web (gunicorn) answers 503 with Retry-After in the gap, never 500, and takes orders again.
Nothing committed before the kill is lost. The seconds to the first commit on the new primary
are printed, not asserted: they depend on the machine.
"""

import time
import uuid

import psycopg
import pytest
import requests
from django.db import Error, connections

from config.settings.database import database_config
from infra.database_errors import database_unavailable
from infra.postgres import database_ensure
from tools.drill.pg_cluster import PrivateDatabaseCluster
from tools.drill.pg_node import PatroniNode
from tools.drill.processes import ManagedProcess, free_port, manage_py, process_env

pytestmark = [pytest.mark.tool_check, pytest.mark.timeout(600)]
NEW_PRIMARY_WITHIN_SECONDS = 60  # a bound for the test, far above what a failover takes
ALIAS = "cluster"


@pytest.fixture(scope="module")
def cluster():
    cluster = PrivateDatabaseCluster(3)
    try:
        cluster.start()
        database_ensure(database_config(cluster.url))
        yield cluster
    finally:
        cluster.stop()


def _primary_crash(cluster: PrivateDatabaseCluster) -> tuple[PatroniNode, float]:
    """SIGKILL the primary's PostgreSQL once the cluster is whole; the node and the moment."""
    cluster.wait_until_healthy(timeout=120)
    primary = cluster.primary()
    assert primary is not None
    primary.kill_postgres()
    return primary, time.monotonic()


@pytest.fixture
def cluster_connection(cluster):
    """Django's connection to the cluster, configured as the product's settings do, under an
    alias of its own among this process's connections (django.contrib.postgres looks a new
    connection up by its alias)."""
    config = database_config(cluster.url) | {"CONN_MAX_AGE": 60, "CONN_HEALTH_CHECKS": True}
    connections.settings[ALIAS] = connections.configure_settings({**connections.settings, ALIAS: config})[
        ALIAS
    ]
    yield connections[ALIAS]
    connections[ALIAS].close()
    del connections[ALIAS]
    del connections.settings[ALIAS]


def test_django_s_connection_commits_on_the_new_primary_without_a_restart(
    cluster, cluster_connection, django_db_blocker
):
    # given
    connection = cluster_connection
    committed: list[int] = []

    def write() -> int:
        """One request's life: its connection checked first, one commit, closed if broken."""
        connection.close_if_unusable_or_obsolete()  # as at the start of each request
        try:
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO failover_probe DEFAULT VALUES RETURNING id, inet_server_port()")
                row_id, port = cursor.fetchone()
            committed.append(row_id)
            return port
        finally:
            connection.close_if_unusable_or_obsolete()  # as at the end of each request

    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute("CREATE TABLE failover_probe (id bigserial PRIMARY KEY)")
        before = [write() for _ in range(20)]
        # when
        old, killed_at = _primary_crash(cluster)
        errors: list[Error] = []
        port = None
        while port is None or port == old.port:
            assert time.monotonic() - killed_at < NEW_PRIMARY_WITHIN_SECONDS, (
                errors[-3:],
                cluster.describe(),
            )
            try:
                port = write()
            except Error as exc:  # InterfaceError is no DatabaseError
                errors.append(exc)
                time.sleep(0.05)
        seconds = time.monotonic() - killed_at
        # then: the same connection object reached the new primary, which has every commit
        new = cluster.wait_for_primary(other_than=old.name)
        assert port == new.port != old.port == before[0]
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM failover_probe")
            assert {row_id for (row_id,) in cursor.fetchall()} >= set(committed)
        connection.close()
    # every error in the gap was one the web answers 503 for
    assert all(database_unavailable(error) for error in errors), [repr(e) for e in errors]
    print(
        f"\nfirst commit on the new primary {new.name} {seconds:.2f} s after the primary's "
        "PostgreSQL was killed"
    )


@pytest.fixture(scope="module")
def web(cluster, broker, tmp_path_factory):
    """bin/web on the cluster, migrated, with an API token."""
    workdir = tmp_path_factory.mktemp("web")
    port = free_port()
    env = process_env(
        database_url=cluster.url,
        broker_url=broker,
        mail_url="http://127.0.0.1:9",  # no email is sent: no worker runs
        workdir=workdir,
        WEB_PORT=str(port),
        WEB_CONCURRENCY="2",
    )
    manage_py("migrate", "--no-input", env=env)
    token = manage_py("create_api_token", "failover", env=env).split()[-1]
    process = ManagedProcess("web", ["bin/web"], env=env, log_path=workdir / "web.log")
    process.start(ready="Booting worker", timeout=60)
    yield f"http://127.0.0.1:{port}", token
    process.stop()


def test_the_web_answers_503_in_the_gap_never_500_and_takes_orders_again(cluster, web):
    url, token = web
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"

    def place() -> requests.Response:
        body = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}
        key = {"Idempotency-Key": str(uuid.uuid4())}
        return session.post(f"{url}/api/orders/", json=body, headers=key, timeout=30)

    # given
    accepted = [place() for _ in range(10)]
    assert {response.status_code for response in accepted} == {201}
    # when
    old, killed_at = _primary_crash(cluster)
    answers: list[requests.Response] = []
    while not answers or answers[-1].status_code != 201:
        assert time.monotonic() - killed_at < NEW_PRIMARY_WITHIN_SECONDS, [r.status_code for r in answers]
        answers.append(place())
    seconds = time.monotonic() - killed_at
    accepted.append(answers[-1])
    # then
    gap = answers[:-1]
    assert {response.status_code for response in gap} <= {503}, [(r.status_code, r.text[:200]) for r in gap]
    assert all(response.headers.get("Retry-After") for response in gap)
    accepted += [place() for _ in range(10)]
    assert {response.status_code for response in accepted} == {201}
    new = cluster.wait_for_primary(other_than=old.name)
    with psycopg.connect(cluster.url) as connection:
        stored = {str(row[0]) for row in connection.execute("SELECT id FROM orders_order")}
    assert {response.json()["id"] for response in accepted} <= stored
    print(
        f"\nthe web took an order on the new primary {new.name} {seconds:.2f} s after the kill; "
        f"{len(gap)} request(s) answered 503 in between"
    )
