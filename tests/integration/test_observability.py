"""Metrics that move as the work moves, logs that follow one event, health that turns with
its dependencies: all against the real stack (gunicorn, Celery prefork, RabbitMQ, simulator)."""

import json
import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families

from drill.processes import ManagedProcess, free_port
from messaging.models import OutboxEvent
from notifications.models import Notification
from tests.conftest import wait_until
from tests.integration.tcp_proxy import TcpProxy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
FINAL = ("sent", "failed", "needs_review", "skipped")


def _scrape(base: str) -> dict[tuple, float]:
    text = requests.get(f"{base}/metrics", timeout=10).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(metrics: dict, name: str, **labels) -> float:
    """The sum over all samples of `name` whose labels include `labels`."""
    return sum(
        value
        for (sample, sample_labels), value in metrics.items()
        if sample == name and set(labels.items()) <= set(sample_labels)
    )


def _post_orders(stack, api_token, addresses: list[str]) -> list[str]:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    ids = []
    for address in addresses:
        response = session.post(
            f"{stack['web']}/api/orders/",
            json={"customer_email": address, "amount": "9.00", "currency": "EUR"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    return ids


def test_metrics_move_by_the_amounts_a_scripted_load_calls_for(stack, api_token):
    # given a provider that fails in known ways: two 503s, one rejection, one dropped answer
    requests.post(
        f"{stack['mailsim']}/_sim/faults",
        json={
            "rules": [
                {"kind": "reject", "to_contains": "bounce@"},
                {"kind": "503", "times": 2, "retry_after": 1},
                {"kind": "accept_then_drop", "times": 1},
            ]
        },
        timeout=5,
    ).raise_for_status()
    before = _scrape(stack["web"])
    # when ten orders come in
    addresses = [f"load{n}@example.com" for n in range(9)] + ["bounce@example.com"]
    order_ids = _post_orders(stack, api_token, addresses)
    wait_until(
        lambda: Notification.objects.filter(order_id__in=order_ids, status__in=FINAL).count() == 10,
        timeout=90,
        message="all ten final",
    )
    # then, once the broker's figures have caught up
    after = wait_until(
        lambda: (
            (m := _scrape(stack["web"]))
            and _value(m, "orders_queue_messages_ready", queue="orders.confirmations.dlq") == 1
            and m
        ),
        timeout=30,
        message="the DLQ depth in /metrics",
    )

    def delta(name, **labels):
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert _value(after, "orders_outbox_backlog") == 0
    assert _value(after, "orders_outbox_oldest_unpublished_age_seconds") == 0
    assert delta("orders_api_orders_accepted_total", replayed="false") == 10
    assert delta("orders_relay_publishes_total", result="confirmed") == 10
    assert delta("orders_provider_calls_total", outcome="accepted") == 9
    assert delta("orders_provider_calls_total", outcome="transient") == 2
    assert delta("orders_provider_calls_total", outcome="unknown") == 1
    assert delta("orders_provider_calls_total", outcome="permanent") == 1
    assert delta("orders_notifications_finished_total", status="sent") == 9
    assert delta("orders_notifications_finished_total", status="failed") == 1
    assert delta("orders_commit_to_sent_seconds_count", kind="order_confirmation") == 9
    assert delta("orders_dead_letters_total", error_class="permanent") == 1
    assert _value(after, "orders_notifications", status="sent") == 9
    assert _value(after, "orders_queue_consumers", queue="orders.confirmations") >= 1
    assert _value(after, "orders_broker_scrape_ok") == 1


def test_one_event_id_finds_the_api_relay_worker_and_provider_lines_of_it(stack, api_token):
    [order_id] = _post_orders(stack, api_token, ["traced@example.com"])
    wait_until(
        lambda: Notification.objects.filter(order_id=order_id, status="sent").exists(),
        timeout=20,
        message="sent",
    )
    event_id = str(OutboxEvent.objects.get(aggregate_id=order_id).id)
    # when we grep the logs of the run for the event id
    lines = [line for line in stack["process"].log_text().splitlines() if event_id in line]
    records = [json.loads(line.split("| ", 1)[1]) for line in lines if "| {" in line]
    by_logger = {record.get("logger"): record for record in records}
    # then each stage has written JSON lines that carry it
    assert by_logger["orders.services"]["message"] == "order accepted"
    assert by_logger["orders.services"]["order_id"] == order_id
    assert by_logger["messaging.relay.relay"]["message"] == "event published"
    worker = by_logger["notifications.delivery.handler"]
    assert (worker["order_id"], worker["attempt"]) == (order_id, "1")
    assert worker["notification_id"]
    assert worker["message"].startswith("provider said accepted")
    provider = by_logger["mailsim.requests"]
    assert (provider["event_id"], provider["outcome"]) == (event_id, "accepted")


def test_readyz_turns_unready_without_the_database_or_the_broker_and_ready_again(
    broker, service_env, tmp_path
):
    db = settings.DATABASES["default"]
    database_proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
    broker_url = urlsplit(broker)
    broker_proxy = TcpProxy(broker_url.hostname, broker_url.port or 5672)
    env = service_env()
    env["DATABASE_URL"] = env["DATABASE_URL"].replace(f":{db['PORT'] or 5432}/", f":{database_proxy.port}/")
    env["CELERY_BROKER_URL"] = broker.replace(f":{broker_url.port or 5672}/", f":{broker_proxy.port}/")
    port = free_port()
    web = ManagedProcess(
        "web",
        [sys.executable, "-m", "gunicorn", "config.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "1"],
        env=env,
        log_path=tmp_path / "web.log",
    )
    web.start(ready=r"Booting worker", timeout=30)
    readyz = f"http://127.0.0.1:{port}/readyz"
    try:
        wait_until(lambda: requests.get(readyz, timeout=10).status_code == 200, timeout=20, message="ready")
        for proxy, dependency in ((database_proxy, "database:"), (broker_proxy, "broker:")):
            proxy.cut()
            down = wait_until(
                lambda: (r := requests.get(readyz, timeout=15)).status_code == 503 and r.json(),
                timeout=30,
                message="unready",
            )
            assert any(problem.startswith(dependency) for problem in down["problems"])
            proxy.restore()
            wait_until(
                lambda: requests.get(readyz, timeout=15).status_code == 200, timeout=30, message="ready again"
            )
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json() == {"ok": True}
    finally:
        web.stop()
        database_proxy.close()
        broker_proxy.close()


def test_the_worker_liveness_check_of_compose_answers_for_a_live_worker_only(service_env, start_worker):
    worker = start_worker()
    name = re.search(r"(test\d+@\S+) ready", worker.log_text()).group(1)
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "inspect",
        "ping",
        "-d",
        name,
        "--timeout",
        "5",
    ]
    env = service_env()
    alive = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert alive.returncode == 0, alive.stdout + alive.stderr
    assert "pong" in alive.stdout
    worker.stop()
    dead = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert dead.returncode != 0


def test_the_dashboard_shows_todays_figures_and_the_latency_picture(
    client, django_user_model, stack, api_token
):
    order_ids = _post_orders(stack, api_token, ["dash1@example.com", "dash2@example.com"])
    wait_until(
        lambda: Notification.objects.filter(order_id__in=order_ids, status="sent").count() == 2,
        timeout=20,
        message="sent",
    )
    client.force_login(django_user_model.objects.create_user("olga", password="pw", is_staff=True))
    page = client.get("/admin/dashboard/").content.decode()
    assert "<svg" in page
    assert page.count("<circle") == 2
    assert "order_confirmation" in page
    assert "2 emails; p50" in page
    assert "orders.confirmations.dlq: 0" in page


def test_the_dashboard_is_for_staff_only(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    assert client.get("/admin/dashboard/").status_code == 302
