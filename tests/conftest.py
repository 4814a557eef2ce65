"""Fixtures of more than one layer: the test database and vhost, the mail simulator, real
Celery workers, an API token. (Each layer's own are in its conftest.py; tests/unit uses none
of these.)

Everything runs against real PostgreSQL (pytest-django's test database) and real RabbitMQ
(a vhost of this run, removed at the end). Nothing here replaces our own infrastructure.
Each fixture that needs a service asks for `broker` or the database, so a test that asks for
none of them starts nothing.
"""

import collections
import itertools
import os
import sys

import pytest
import requests
from pytest_django import DjangoDbBlocker
from pytest_django.fixtures import validate_django_db

from config.settings.test import TEST_RABBITMQ_VHOST
from tests.broker_health import broker_state_now, within_set_up_time
from tests.flush_by_delete import flush_by_delete_install
from tests.migration_rows import migration_rows_dump, migration_rows_restore
from tests.waiting import wait_until
from tools.drill.processes import ManagedProcess, database_url, process_env

PYTHON = sys.executable


MIGRATION_ROWS = pytest.StashKey[tuple[str, DjangoDbBlocker]]()


def _one_of_several_processes() -> bool:
    """Whether this is one process of a parallel run (pytest-xdist): its database and vhost are
    removed by the run once every process has ended (pytest_sessionfinish), not by itself."""
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


@pytest.fixture(scope="session")
def django_db_keepdb(request) -> bool:
    """pytest-django's: kept by a process of a parallel run, for the run to drop at its end."""
    return bool(request.config.getvalue("reuse_db")) or _one_of_several_processes()


def pytest_configure(config: pytest.Config) -> None:
    """Transactional tests end by deleting their rows, not truncating (tests/flush_by_delete.py)."""
    flush_by_delete_install()


def pytest_sessionstart(session: pytest.Session) -> None:
    """A parallel run's start, in its controlling process: what killed runs left removed once,
    before any process tests (a process doing it would race another's test of it)."""
    if _one_of_several_processes() or not getattr(session.config.option, "numprocesses", None):
        return
    from django.conf import settings

    from infra.rabbitmq import RabbitAdmin

    _unless_services_away(lambda: stale_runs_clear(RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The parallel run's end, in its controlling process: every process's database and vhost
    removed, now that none is testing (tests/stale_runs.py run_leftovers_remove)."""
    if _one_of_several_processes() or not getattr(session.config.option, "numprocesses", None):
        return
    from django.conf import settings

    from infra.rabbitmq import RabbitAdmin
    from tests.stale_runs import run_leftovers_remove

    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    _unless_services_away(
        lambda: run_leftovers_remove(admin, _maintenance_url(), run_id=os.environ["TEST_RUN_ID"])
    )


def _unless_services_away(step) -> None:
    """A parallel run of unit tests alone starts no service (the Makefile's UNIT_ONLY): with
    PostgreSQL or RabbitMQ away there is nothing of this run, or of a killed one, to remove."""
    import psycopg

    try:
        step()
    except (OSError, requests.RequestException, psycopg.OperationalError) as error:
        print(f"test leftovers not looked for: a service is away ({error})", file=sys.stderr)


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup, django_db_blocker):
    """pytest-django's test database, dropped at the end even if a connection was left open
    (a live-server or browser thread): those are ended first, so no database is left behind.
    The rows the migrations wrote are kept, to be put back after each transactional test
    (tests/migration_rows.py).

    pytest-django sets up only the databases its marked tests name. A run of only unmarked
    tests that still need the database (those sharing it with a running stack, `module_stack`)
    would find none, and its processes would be pointed at the development database: the
    test database is then set up here."""
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        set_up_here = None
        if connection.settings_dict["NAME"] != connection.settings_dict["TEST"]["NAME"]:
            # Django reads `aliases` as a collection of names; the stubs say Mapping.
            set_up_here = setup_databases(verbosity=0, interactive=False, aliases={"default"})  # type: ignore[arg-type]
        request.config.stash[MIGRATION_ROWS] = (migration_rows_dump(), django_db_blocker)
    yield
    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        if set_up_here is not None and not _one_of_several_processes():
            teardown_databases(set_up_here, verbosity=0)


def _transactional(item: pytest.Item) -> bool:
    """Whether pytest-django ran the test as a TransactionTestCase (read as it reads it)."""
    marker = item.get_closest_marker("django_db")
    transaction, reset_sequences, *_ = validate_django_db(marker) if marker else (False, False)
    fixtures = set(getattr(item, "fixturenames", ()))
    return transaction or reset_sequences or bool({"transactional_db", "live_server"} & fixtures)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files with a `long_running` test first, then the others, those of more tests first
    (each in pytest-django's order): a run on several processes hands out whole files in this
    order, and a drill started last would keep the run waiting for it alone. pytest-xdist
    would order the files by their number of tests alone, a drill of one test last: `make
    test` tells it to keep this order (--no-loadscope-reorder)."""
    long_files = {item.path for item in items if item.get_closest_marker("long_running")}
    tests_in_file = collections.Counter(item.path for item in items)
    items.sort(key=lambda item: (item.path not in long_files, -tests_in_file[item.path]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After a transactional test's flush (its fixtures' teardown), the migrations' rows again;
    not after the last test, whose teardown has dropped the test database too."""
    result = yield
    if nextitem is not None and _transactional(item) and MIGRATION_ROWS in item.config.stash:
        dump, blocker = item.config.stash[MIGRATION_ROWS]
        with blocker.unblock():
            migration_rows_restore(dump)
    return result


@pytest.fixture(scope="session")
def processes_database_url(django_db_setup) -> str:
    """The URL of the test database, for the product processes a test starts."""
    from django.db import connection

    db = connection.settings_dict
    return database_url(
        db["NAME"],
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "",
        password=db["PASSWORD"] or "",
    )


@pytest.fixture(scope="session")
def broker(django_db_setup):
    """The run's own vhost with the full topology, deleted when the session ends."""
    from django.conf import settings

    from infra.rabbitmq import RabbitAdmin, user_of
    from messaging.broker.declare import topology_declare

    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)

    def set_up() -> None:
        if not _one_of_several_processes():  # a parallel run's controller cleared them
            stale_runs_clear(admin)
        admin.vhost_ensure(TEST_RABBITMQ_VHOST, user=user_of(settings.CELERY_BROKER_URL))
        topology_declare(broker_url=settings.CELERY_BROKER_URL)

    within_set_up_time(set_up, what=f"the test vhost {TEST_RABBITMQ_VHOST}", state=broker_state_now)
    yield settings.CELERY_BROKER_URL
    if not _one_of_several_processes():
        admin.vhost_delete(TEST_RABBITMQ_VHOST)


def stale_runs_clear(admin) -> None:
    """What killed runs left (tests/stale_runs.py), before this run adds its own."""
    from tests.stale_runs import stale_databases_drop, stale_vhosts_delete

    for what in stale_vhosts_delete(admin) + stale_databases_drop(_maintenance_url()):
        print(f"removed what a killed test run left: {what}", file=sys.stderr)


def _maintenance_url() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    return database_url(
        "postgres",
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "",
        password=db["PASSWORD"] or "",
    )


@pytest.fixture
def clean_queues(broker):
    from tests.broker import queues_purge

    queues_purge()
    yield
    queues_purge()


class MailSim:
    """Our mail provider simulator, over real HTTP."""

    def __init__(self, url: str):
        self.url = url

    def reset(self) -> None:
        # A request of an earlier test may still be held in flight (fault "hold"); it would
        # store its email after the reset, in this test's records. Let it finish first.
        wait_until(lambda: not self._keys_in_flight(), timeout=15, message="mailsim idle")
        requests.post(f"{self.url}/_sim/reset", timeout=5).raise_for_status()

    def _keys_in_flight(self) -> list[dict]:
        records = requests.get(f"{self.url}/_sim/idempotency", timeout=5).json()["records"]
        return [record for record in records if record["state"] == "in_flight"]

    def messages(self) -> list[dict]:
        return requests.get(f"{self.url}/_sim/messages", timeout=5).json()["messages"]

    def requests_log(self) -> list[dict]:
        return requests.get(f"{self.url}/_sim/requests", timeout=5).json()["requests"]

    def set_faults(self, *rules: dict, seed: int = 0) -> None:
        response = requests.post(
            f"{self.url}/_sim/faults", json={"rules": list(rules), "seed": seed}, timeout=5
        )
        response.raise_for_status()


@pytest.fixture(scope="session")
def mailsim_process(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("mailsim")
    process = ManagedProcess(
        "mailsim",
        [PYTHON, "-m", "tools.mailsim", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir)],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        log_path=data_dir / "mailsim.log",
    ).start(ready=r"mailsim listening on http://\S+")
    yield process
    process.stop()


@pytest.fixture(scope="session")
def mailsim_url(mailsim_process):
    from django.test import override_settings

    from notifications.providers.catalogue import mail_provider

    url = mailsim_process.wait_for_log(r"mailsim listening on (http://\S+)", timeout=1).group(1)
    override = override_settings(MAIL_PROVIDER_URL=url)
    override.enable()
    mail_provider.cache_clear()
    yield url
    override.disable()
    mail_provider.cache_clear()


@pytest.fixture
def mailsim(mailsim_url):
    sim = MailSim(mailsim_url)
    sim.reset()
    return sim


@pytest.fixture(scope="session")
def worker_launcher(broker, mailsim_url, processes_database_url):
    """`launch(log_dir=..., concurrency=..., **extra_env)`: a real `celery worker` process on
    the test database, the run's vhost and the simulator, started and ready. Use
    `start_worker` (one test) or `module_worker` (tests/integration/conftest.py)."""
    numbers = itertools.count(1)

    def launch(*, log_dir, concurrency: int, **extra_env: str) -> ManagedProcess:
        number = next(numbers)
        worker = ManagedProcess(
            f"worker{number}",
            [
                *(PYTHON, "-m", "celery", "-A", "config", "worker"),
                *("-X", "orders.maintenance"),  # every work queue, as bin/worker does
                *("-c", str(concurrency), "-n", f"test{number}@%h"),
                *("--without-gossip", "--without-mingle", "-l", "INFO"),
            ],
            env=process_env(database_url=processes_database_url, broker_url=broker, mail_url=mailsim_url)
            | extra_env,
            log_path=log_dir / f"worker{number}.log",
        )
        try:
            return worker.start(ready=r" ready\.", timeout=60)
        except TimeoutError as error:
            raise TimeoutError(f"{error}\n{broker_state_now()}") from error

    return launch


@pytest.fixture
def start_worker(worker_launcher, tmp_path):
    """Start real `celery worker` processes; all are killed when the test ends. The test has
    looked at all it needs by then, and a SIGTERM took Celery 1.4 s to end on: a second and a
    half of every worker test (the next test's `clean_queues` purges what they held)."""
    started: list[ManagedProcess] = []

    def start(*, concurrency: int = 2, **extra_env) -> ManagedProcess:
        started.append(worker_launcher(log_dir=tmp_path, concurrency=concurrency, **extra_env))
        return started[-1]

    yield start
    for worker in started:
        worker.kill()


@pytest.fixture
def api_token(db):
    from apiauth.services import api_token_create

    _, raw = api_token_create(name="tests")
    return raw
