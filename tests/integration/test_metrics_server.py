"""`manage.py metrics_server`: the /metrics of a pod without a web process. A real worker
counts into the pod's PROMETHEUS_MULTIPROC_DIR; the server beside it serves those counts,
labelled with the pod as host."""

import subprocess
import sys

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from notifications.models import Notification
from tests.factories import OrderFactory
from tests.waiting import wait_until
from tools.drill.processes import REPO, ManagedProcess, free_port, process_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def pod(tmp_path, broker, mailsim_url, processes_database_url, start_worker):
    directory = str(tmp_path / "prometheus")
    start_worker(PROMETHEUS_MULTIPROC_DIR=directory)
    port = free_port()
    env = process_env(
        database_url=processes_database_url,
        broker_url=broker,
        mail_url=mailsim_url,
        PROMETHEUS_MULTIPROC_DIR=directory,
        METRICS_HOST="worker-pod-1",
    )
    server = ManagedProcess(
        "metrics",
        [sys.executable, "manage.py", "metrics_server", "--port", str(port), "--bind", "127.0.0.1"],
        env=env,
        log_path=tmp_path / "metrics.log",
    ).start(ready=r"metrics of .* on http", timeout=30)
    yield f"http://127.0.0.1:{port}/metrics"
    server.stop()


def test_the_sidecar_serves_the_workers_counts_labelled_with_the_pod(pod, mailsim):
    order = OrderFactory.create()
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(), timeout=30, message="sent"
    )
    samples = [
        sample
        for family in text_string_to_metric_families(requests.get(pod, timeout=5).text)
        for sample in family.samples
    ]
    accepted = [
        s for s in samples if s.name == "orders_provider_calls_total" and s.labels["outcome"] == "accepted"
    ]
    assert [(s.labels["host"], s.value) for s in accepted] == [("worker-pod-1", 1.0)]


def test_without_a_multiprocess_directory_it_refuses_with_the_reason(
    processes_database_url, broker, mailsim_url
):
    env = process_env(database_url=processes_database_url, broker_url=broker, mail_url=mailsim_url)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "metrics_server"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "PROMETHEUS_MULTIPROC_DIR is not set" in result.stderr
    assert "Traceback" not in result.stderr
