"""Fixtures of the integration tests: a worker for a whole module, the API under gunicorn,
the environment of a process a test starts, the SMTP twin of the mail simulator, and an
order placed without a broker."""

import json
import re
import signal
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from messaging import metrics as broker_metrics
from notifications.email_editors import email_editors_group_ensure
from notifications.invoice_template_editors import invoice_template_editors_group_ensure
from orders.models import Order
from tests.factories import OrderFactory
from tests.integration.mailsim_support import SimProcess
from tests.waiting import answers, wait_until
from tools.drill.processes import ManagedProcess, free_port, process_env


@pytest.fixture
def order(django_capture_on_commit_callbacks) -> Order:
    """Ada's order of 49.90 EUR as `order_create` leaves it: its `order.created` event in the
    outbox and its confirmation pending. The on-commit publish is captured and never run (and
    the test transaction never commits): no broker is needed. For `django_db`, not
    `transaction=True`."""
    with django_capture_on_commit_callbacks(execute=False):
        return OrderFactory.create(customer_email="ada@example.com", amount="49.90", currency="EUR")


@pytest.fixture(scope="module")
def module_worker(worker_launcher, tmp_path_factory):
    """One real worker for a whole test module (with default settings).

    The queues are emptied before it starts: the previous module's worker may have handed
    prefetched messages back on its way out, and this worker would take them before a
    test's `clean_queues` could purge them (a leftover event of a flushed database is then
    dead-lettered in this module's test)."""
    from tests.broker import queues_purge

    queues_purge()
    worker = worker_launcher(log_dir=tmp_path_factory.mktemp("worker"), concurrency=2)
    yield worker
    worker.kill()  # as start_worker's; the queues are purged again before the next one starts
    queues_purge()


@pytest.fixture(autouse=True)
def fast_path_unpaused():
    """Every integration test starts with the on-commit publish unpaused, and so do the tests
    after it: the pause is one value per process, and one test's failed publish (a broker
    made away on purpose) would otherwise send the next tests' orders in the same xdist
    process to the slower sweep for up to 10 s.

    Reset before as well as after: a pause an earlier test left outlives its 10 s as a past
    deadline, and a test that asserts no pause was set must not read that one. Tests that
    need it named still ask for it by name."""
    from messaging.relay import relay

    relay._fast_path_paused_until = 0.0
    yield
    relay._fast_path_paused_until = 0.0


@pytest.fixture
def service_env(broker, mailsim_url, processes_database_url):
    """`service_env(**extra)`: the environment of a product process this test starts, on the
    test database, the run's vhost and the mail simulator (tools.drill.processes.process_env)."""

    def env(**extra: str) -> dict[str, str]:
        return (
            process_env(database_url=processes_database_url, broker_url=broker, mail_url=mailsim_url) | extra
        )

    return env


@pytest.fixture
def start_web(service_env, tmp_path):
    """Start the API under gunicorn (its own processes, the test database and vhost); a test
    using it needs `django_db(transaction=True)`, so the processes see what it commits."""
    started: list[ManagedProcess] = []

    def start(*, workers: int = 1, **extra_env: str) -> str:
        port = free_port()
        command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "-b", f"127.0.0.1:{port}"]
        web = ManagedProcess(
            f"web{len(started) + 1}",
            [*command, "-w", str(workers)],
            env=service_env(**extra_env),
            log_path=tmp_path / f"web{len(started) + 1}.log",
        )
        started.append(web.start(ready="Booting worker"))
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(f"{url}/healthz"), timeout=30, message="web up")
        return url

    yield start
    for web in started:
        web.kill()  # as start_worker's: nothing is looked at any more


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
        [sys.executable, "-m", "tools.mailsim.smtp", "--port", "0", "--data-dir", str(data_dir)],
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
def mailsim_spawn(tmp_path):
    """`mailsim_spawn(*args, data_dir=...)`: a simulator process of the test's own (for restart
    tests, or options the shared one lacks); all are SIGKILLed at teardown."""
    started: list[SimProcess] = []

    def start(*extra_args: str, data_dir: Path = tmp_path / "data") -> SimProcess:
        started.append(SimProcess(data_dir, *extra_args))
        return started[-1]

    yield start
    for process in started:
        process.stop(signal.SIGKILL)


def exported_names(exposition: str) -> set[str]:
    """The series names an exposition offers, with the suffixes PromQL may use."""
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", exposition, re.MULTILINE):
        suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"]}.get(kind, [""])
        base = name.removesuffix("_total") if kind == "counter" else name  # both spellings occur
        names |= {base + suffix for suffix in suffixes}
    return names


@pytest.fixture
def endpoints(client, broker) -> dict[str, set[str]]:
    """Metric names per endpoint, from this service."""
    broker_metrics._broker_cache = (0.0, None)  # read the test vhost now, not a cached answer
    return {
        "/metrics": exported_names(client.get("/metrics").content.decode()),
        "/metrics/deployment": exported_names(client.get("/metrics/deployment").content.decode()),
    }


@pytest.fixture
def editor(client) -> User:
    """A staff member of the email editors' group, logged in: who edits the emails' wording
    (not the invoice template: invoice_editor)."""
    user = User.objects.create_user("edith", password="pw", is_staff=True)
    user.groups.add(email_editors_group_ensure())
    client.force_login(user)
    return user


@pytest.fixture
def invoice_editor(client) -> User:
    """A staff member of the invoice template editors' group, logged in: who edits the invoice
    template (not the emails' wording: editor)."""
    user = User.objects.create_user("ines", password="pw", is_staff=True)
    user.groups.add(invoice_template_editors_group_ensure())
    client.force_login(user)
    return user
