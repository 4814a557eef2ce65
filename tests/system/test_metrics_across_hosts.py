"""Metrics that add up across hosts: two application hosts, each a web and a worker process
sharing that host's PROMETHEUS_MULTIPROC_DIR and with its own METRICS_HOST, as on two
machines, against one database, broker and provider. Orders come in through both; the per-
host counts carry their host and sum to the truth (the database, the provider's messages);
the deployment figures are the same on both hosts and served apart from the per-host ones."""

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from notifications.models import Notification
from orders.models import Order
from tests.waiting import wait_until
from tools.drill.processes import REPO, ManagedProcess, free_port, process_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
ORDERS = {"host-a": 4, "host-b": 3}


@pytest.fixture
def hosts(broker, mailsim_url, processes_database_url, tmp_path):
    started: list[ManagedProcess] = []
    urls = {}
    for host in ORDERS:
        port = free_port()
        env = process_env(
            database_url=processes_database_url,
            broker_url=broker,
            mail_url=mailsim_url,
            PROMETHEUS_MULTIPROC_DIR=str(tmp_path / host / "prometheus"),
            METRICS_HOST=host,
            WEB_PORT=str(port),
            WORKER_NAME=f"worker-{host}",
            LOG_LEVEL="INFO",
        )
        for name, ready in (("web", r"Booting worker"), ("worker", r" ready\.")):
            process = ManagedProcess(
                f"{name}-{host}",
                [str(REPO / "bin" / name)],
                env=env,
                log_path=tmp_path / f"{name}-{host}.log",
            )
            started.append(process.start(ready=ready, timeout=90))
        urls[host] = f"http://127.0.0.1:{port}"
    yield urls
    for process in started:
        process.stop()


def _samples(url: str) -> list:
    text = requests.get(url, timeout=10).text
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples]


def _sum(samples, name: str, **labels) -> float:
    return sum(s.value for s in samples if s.name == name and labels.items() <= s.labels.items())


def test_per_host_counts_sum_to_the_truth_and_deployment_figures_are_served_once(hosts, api_token, mailsim):
    for host, count in ORDERS.items():
        for n in range(count):
            response = requests.post(
                f"{hosts[host]}/api/orders/",
                json={"customer_email": f"{host}-{n}@example.com", "amount": "3.00", "currency": "EUR"},
                headers={"Authorization": f"Bearer {api_token}"},
                timeout=10,
            )
            assert response.status_code == 201, response.text
    total = sum(ORDERS.values())
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == total, timeout=60, message="all sent"
    )
    per_host = {host: _samples(f"{url}/metrics") for host, url in hosts.items()}
    # every per-host series says whose it is
    for host, samples in per_host.items():
        assert samples
        assert {s.labels.get("host") for s in samples} == {host}
    # the API's counts are each host's own, and they add up to the orders in the database
    for host, count in ORDERS.items():
        assert _sum(per_host[host], "orders_api_orders_accepted_total", replayed="false") == count
    assert (
        sum(_sum(s, "orders_api_orders_accepted_total") for s in per_host.values())
        == Order.objects.count()
        == total
    )
    # the workers' counts split between the hosts however the broker shared the work, and add up
    # to what the provider received
    accepted = [_sum(s, "orders_provider_calls_total", outcome="accepted") for s in per_host.values()]
    assert sum(accepted) == len(mailsim.messages()) == total
    finished = sum(_sum(s, "orders_notifications_finished_total", status="sent") for s in per_host.values())
    assert finished == total
    # the deployment's figures: the same from either host, and not in the per-host endpoint
    deployment = {host: _samples(f"{url}/metrics/deployment") for host, url in hosts.items()}
    sent = [_sum(samples, "orders_notifications", status="sent") for samples in deployment.values()]
    assert sent == [total, total]
    for host in hosts:
        assert not {s.name for s in per_host[host]} & {s.name for s in deployment[host]}
