"""Metrics that move as the work moves, logs that follow one event, the dashboard's figures:
against the whole stack of `make run` (gunicorn, Celery prefork, relay, beat, RabbitMQ,
simulator). (Health that turns with its dependencies: tests/integration/test_observability.py.)"""

import json

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from messaging.models import OutboxEvent
from notifications.models import Notification, OperatorAction, ProviderEvent
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
FINAL = ("sent", "failed", "needs_review", "skipped")


def _scrape(base: str) -> dict[tuple, float]:
    """This host's process counts and the deployment's figures, as Prometheus' two jobs see them."""
    text = "".join(
        requests.get(f"{base}{path}", timeout=10).text for path in ("/metrics", "/metrics/deployment")
    )
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
    # and the provider's webhooks (email.sent and email.delivered for each of the 9 it accepted)
    # are applied
    wait_until(
        lambda: ProviderEvent.objects.filter(applied_at__isnull=False).count() == 18,
        timeout=30,
        message="18 provider events applied",
    )
    # then, once the broker's figures have caught up: RabbitMQ's management API refreshes each
    # queue's figures on its own timer (every 5 s), so on a fast machine the DLQ's depth can be
    # current while the work queue's still counts no consumer from before the worker started
    after = wait_until(
        lambda: (
            (m := _scrape(stack["web"]))
            and _value(m, "orders_queue_messages_ready", queue="orders.confirmations.dlq") == 1
            and _value(m, "orders_queue_consumers", queue="orders.confirmations") >= 1
            and m
        ),
        timeout=30,
        message="the DLQ depth and the work queue's consumer in /metrics",
    )

    def delta(name, **labels):
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert _value(after, "orders_outbox_backlog") == 0
    assert _value(after, "orders_outbox_oldest_unpublished_age_seconds") == 0
    assert delta("orders_api_orders_accepted_total", replayed="false") == 10
    assert ProviderEvent.objects.count() == 18
    # ten order events, and one outbox event per stored provider event
    assert delta("orders_relay_publishes_total", result="confirmed") == 10 + 18
    # The dropped answer is settled either by its retry under the same key (the provider
    # replays it) or, when the provider's email.sent event comes first, by that evidence.
    settled_by_evidence = OperatorAction.objects.filter(action="settle").count()
    assert delta("orders_provider_calls_total", outcome="accepted") + settled_by_evidence == 9
    assert delta("orders_provider_calls_total", outcome="transient") == 2
    assert delta("orders_provider_calls_total", outcome="unknown") == 1
    assert delta("orders_provider_calls_total", outcome="permanent") == 1
    assert delta("orders_notifications_finished_total", status="sent") == 9
    assert delta("orders_notifications_finished_total", status="failed") == 1
    assert delta("orders_commit_to_sent_seconds_count", kind="order_confirmation") == 9
    assert delta("orders_dead_letters_total", error_class="permanent") == 1
    assert _value(after, "orders_notifications", status="sent") == 9
    assert (
        _value(after, "orders_notifications_delivery", kind="order_confirmation", delivery_status="delivered")
        == 9
    )
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
    worker = by_logger["notifications.delivery.calls"]  # the provider call's line
    assert (worker["order_id"], worker["attempt"]) == (order_id, "1")
    assert worker["notification_id"]
    assert worker["message"].startswith("provider said accepted")
    provider = by_logger["mailsim.requests"]
    assert (provider["event_id"], provider["outcome"]) == (event_id, "accepted")


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
    assert '<span class="figure">0</span><span class="label">dead letters</span>' in page  # all queues empty
