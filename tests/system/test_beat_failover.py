"""Two real beat processes (bin/beat), as on two hosts: one leads and sends the periodic
jobs, the other waits; when the leader is SIGKILLed, the other takes over within seconds
and its next outbox sweep publishes an event that nothing else would have published."""

import time

import pytest

from messaging.models import OutboxEvent
from tests.factories import UnpublishedOrderFactory
from tests.waiting import wait_until
from tools.drill.processes import REPO, ManagedProcess, process_env

pytestmark = pytest.mark.django_db(transaction=True)
SENDS_SWEEP = r"Sending due task relay-outbox-sweep"
TAKEOVER_SECONDS = 10  # the waiting beat polls every 2 s


def _schedule_age_mark(workdir) -> float:
    return max(path.stat().st_mtime for path in workdir.glob("beat-schedule*"))


@pytest.fixture
def launch(broker, mailsim_url, processes_database_url, tmp_path):
    started: list[ManagedProcess] = []

    def start(name: str, command: str, ready: str) -> ManagedProcess:
        env = process_env(
            database_url=processes_database_url,
            broker_url=broker,
            mail_url=mailsim_url,
            workdir=tmp_path / name,  # each beat its own schedule file, as on its own host
            OUTBOX_SWEEP_INTERVAL_SECONDS="1",
            LOG_LEVEL="INFO",
        )
        (tmp_path / name).mkdir()
        process = ManagedProcess(
            name, [str(REPO / "bin" / command)], env=env, log_path=tmp_path / f"{name}.log"
        )
        started.append(process.start(ready=ready, timeout=60))
        return process

    yield start
    for process in started:
        process.stop()


def test_the_waiting_beat_takes_over_when_the_leader_is_killed(launch, clean_queues, tmp_path):
    launch("relay", "relay", ready=r"ready\.")  # runs the sweeps beat sends
    first = launch("beat-a", "beat", ready=r"is now the leader")
    first.wait_for_log(SENDS_SWEEP, timeout=15)
    second = launch("beat-b", "beat", ready=r"waits: another beat leads")
    seen = _schedule_age_mark(tmp_path / "beat-b")  # its liveness check reads the files' age
    time.sleep(3)  # a few sweeps later, still only the leader sends
    assert SENDS_SWEEP not in second.log_text()
    assert _schedule_age_mark(tmp_path / "beat-b") > seen, "a waiting beat shows it is alive"
    # when the leader dies without a word
    first.kill()
    killed_at = time.monotonic()
    second.wait_for_log(r"is now the leader", timeout=TAKEOVER_SECONDS)
    took = time.monotonic() - killed_at
    # then the other's sweep publishes an event that only a sweep would publish (its
    # process "died" before the on-commit publish)
    order = UnpublishedOrderFactory.create()
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    wait_until(
        lambda: OutboxEvent.objects.filter(pk=event.pk, published_at__isnull=False).exists(),
        timeout=15,
        message="the new leader's sweep published the event",
    )
    assert SENDS_SWEEP in second.log_text()
    assert took < TAKEOVER_SECONDS, f"took over after {took:.1f} s"
