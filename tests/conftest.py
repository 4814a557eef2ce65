"""Shared fixtures: the test vhost, the mail simulator, real Celery workers.

Everything runs against real PostgreSQL (pytest-django's test database) and real RabbitMQ
(a vhost of this run, removed at the end). Nothing here replaces our own infrastructure.
"""

import itertools
import json
import os
import sys
import time
from pathlib import Path

import pytest
import requests

from drill.processes import REPO, ManagedProcess, database_url, free_port, process_env

PYTHON = sys.executable


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, dropped at the end even if a connection was left open
    (a live-server or browser thread): those are ended first, so no database is left behind."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session")
def broker(django_db_setup):
    """The run's own vhost with the full topology, deleted when the session ends."""
    from django.conf import settings

    from infra.rabbitmq import RabbitAdmin, user_of
    from messaging.broker.declare import topology_declare

    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    admin.vhost_ensure(settings.TEST_RABBITMQ_VHOST, user=user_of(settings.CELERY_BROKER_URL))
    topology_declare(broker_url=settings.CELERY_BROKER_URL)
    yield settings.CELERY_BROKER_URL
    admin.vhost_delete(settings.TEST_RABBITMQ_VHOST)


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
        [PYTHON, "-m", "mailsim", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir)],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        log_path=data_dir / "mailsim.log",
    ).start(ready=r"mailsim listening on http://\S+")
    yield process
    process.stop()


@pytest.fixture(scope="session")
def mailsim_url(mailsim_process):
    from django.test import override_settings

    from notifications.providers.base import mail_provider

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


def database_url_for_tests() -> str:
    """The URL of pytest-django's test database (once created), for the processes a test starts."""
    from django.db import connection

    db = connection.settings_dict
    return database_url(
        db["NAME"],
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "",
        password=db["PASSWORD"] or "",
    )


@pytest.fixture
def service_env(broker, mailsim_url):
    """`service_env(**extra)`: the environment of a product process this test starts, on the
    test database, the run's vhost and the mail simulator (drill.processes.process_env)."""

    def env(**extra: str) -> dict[str, str]:
        return process_env(
            database_url=database_url_for_tests(), broker_url=broker, mail_url=mailsim_url, **extra
        )

    return env


_worker_numbers = itertools.count(1)


def _worker(*, broker: str, mail_url: str, log_dir: Path, concurrency: int, **extra_env) -> ManagedProcess:
    number = next(_worker_numbers)
    return ManagedProcess(
        f"worker{number}",
        [
            *(PYTHON, "-m", "celery", "-A", "config", "worker"),
            *("-X", "orders.maintenance"),  # every work queue, as bin/worker does
            *("-c", str(concurrency), "-n", f"test{number}@%h"),
            *("--without-gossip", "--without-mingle", "-l", "INFO"),
        ],
        env=process_env(
            database_url=database_url_for_tests(), broker_url=broker, mail_url=mail_url, **extra_env
        ),
        log_path=log_dir / f"worker{number}.log",
    ).start(ready=r" ready\.", timeout=60)


@pytest.fixture
def start_worker(broker, mailsim_url, tmp_path):
    """Start real `celery worker` processes; all are stopped when the test ends."""
    started: list[ManagedProcess] = []

    def start(*, concurrency: int = 2, **extra_env) -> ManagedProcess:
        started.append(
            _worker(
                broker=broker, mail_url=mailsim_url, log_dir=tmp_path, concurrency=concurrency, **extra_env
            )
        )
        return started[-1]

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture(scope="module")
def module_worker(broker, mailsim_url, tmp_path_factory):
    """One real worker for a whole test module (with default settings)."""
    worker = _worker(
        broker=broker, mail_url=mailsim_url, log_dir=tmp_path_factory.mktemp("worker"), concurrency=2
    )
    yield worker
    worker.stop()


def wait_until(predicate, *, timeout: float, interval: float = 0.2, message: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{message} not reached within {timeout}s")


@pytest.fixture
def api_token(db):
    from apiauth.services import api_token_create

    _, raw = api_token_create(name="tests")
    return raw


class SmtpSim:
    def __init__(self, data_dir: Path, port: int):
        self.data_dir = data_dir
        self.port = port

    def messages(self) -> list[dict]:
        path = self.data_dir / "messages.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def set_fault(self, **fault) -> None:
        (self.data_dir / "faults.json").write_text(json.dumps(fault))

    def reset(self) -> None:
        for name in ("messages.jsonl", "faults.json"):
            (self.data_dir / name).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def smtp_process(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("smtp")
    process = ManagedProcess(
        "smtp",
        [sys.executable, "-m", "mailsim.smtp", "--port", "0", "--data-dir", str(data_dir)],
        env={"PYTHONUNBUFFERED": "1", "PATH": "/usr/bin:/bin"},
        log_path=data_dir / "smtp.log",
    ).start(ready=r"mailsim smtp listening on \S+")
    yield process, data_dir
    process.stop()


@pytest.fixture
def smtpsim(smtp_process) -> SmtpSim:
    """The SMTP twin, emptied; point a provider at `smtpsim.port`."""
    process, data_dir = smtp_process
    port = int(process.wait_for_log(r"listening on [\d.]+:(\d+)", timeout=1).group(1))
    sim = SmtpSim(data_dir, port)
    sim.reset()
    return sim


@pytest.fixture
def stack(broker, tmp_path: Path):
    """The Procfile of `make run` under honcho: web (gunicorn), worker, relay, beat, Flower and
    the mail simulator, on free ports, against the test database and vhost."""
    ports = {"web": free_port(), "flower": free_port(), "mailsim": free_port()}
    mail_url = f"http://127.0.0.1:{ports['mailsim']}"
    env = process_env(
        database_url=database_url_for_tests(),
        broker_url=broker,
        mail_url=mail_url,
        workdir=tmp_path,  # the mail simulator's store, beat's schedule, Prometheus' files
        WEB_PORT=str(ports["web"]),
        FLOWER_PORT=str(ports["flower"]),
        FLOWER_BASIC_AUTH="ops:test-password",
        MAILSIM_PORT=str(ports["mailsim"]),
        OUTBOX_SWEEP_INTERVAL_SECONDS="1",
    )
    honcho = ManagedProcess(
        "honcho",
        [str(Path(sys.executable).parent / "honcho"), "start", "-f", str(REPO / "Procfile")],
        env=env,
        log_path=tmp_path / "stack.log",
    )
    honcho.start(ready=r"worker@\S+ ready\.", timeout=90)
    honcho.wait_for_log(r"relay@\S+ ready\.", timeout=60)
    wait_until(lambda: _answers(f"http://127.0.0.1:{ports['web']}/healthz"), timeout=30, message="web up")
    wait_until(lambda: _answers(f"{mail_url}/_sim/health"), timeout=30, message="mailsim up")
    yield {name: f"http://127.0.0.1:{port}" for name, port in ports.items()} | {"process": honcho}
    honcho.stop(timeout=30)


def _answers(url: str, **kwargs) -> bool:
    try:
        return requests.get(url, timeout=2, **kwargs).status_code < 500
    except requests.ConnectionError:
        return False


@pytest.fixture
def start_web(service_env, tmp_path):
    """Start the API under gunicorn (its own processes, the test database and vhost); a test
    using it needs `django_db(transaction=True)`, so the processes see what it commits."""
    started: list[ManagedProcess] = []

    def start(*, workers: int = 1, **extra_env: str) -> str:
        port = free_port()
        command = [PYTHON, "-m", "gunicorn", "config.wsgi:application", "-b", f"127.0.0.1:{port}"]
        web = ManagedProcess(
            f"web{len(started) + 1}",
            [*command, "-w", str(workers)],
            env=service_env(**extra_env),
            log_path=tmp_path / f"web{len(started) + 1}.log",
        )
        started.append(web.start(ready="Booting worker"))
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: _answers_in_time(f"{url}/healthz"), timeout=30, message="web up")
        return url

    yield start
    for web in started:
        web.stop()


def _answers_in_time(url: str) -> bool:
    try:
        return _answers(url)
    except requests.Timeout:
        return False  # workers still booting on a busy machine
