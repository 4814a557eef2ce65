"""The manage.py commands that set the product up and manage API tokens."""

import os
import subprocess
import sys
import uuid
from io import StringIO
from urllib.parse import quote

import amqp
import psycopg
import pytest
from django.core.management import CommandError, call_command
from kombu import Connection
from rest_framework.test import APIClient

from apiauth.models import ApiToken
from infra.rabbitmq import RabbitAdmin, broker_url_with_vhost, user_of, vhost_of
from messaging.broker.channel import amqp_channel
from messaging.broker.declare import topology_declare, topology_missing
from tools.drill.processes import REPO


@pytest.mark.django_db
def test_create_api_token_prints_a_working_token_and_stores_only_its_hash():
    out = StringIO()
    call_command("create_api_token", "checkout", stdout=out)
    raw = out.getvalue().strip()
    assert raw.startswith("ont_")
    token = ApiToken.objects.get(name="checkout")
    assert raw not in (token.key_hash, token.prefix)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(f"/api/orders/{uuid.uuid4()}/").status_code == 404  # authenticated
    token.refresh_from_db()
    assert token.last_used_at is not None


@pytest.mark.django_db
def test_revoking_a_token_locks_it_out_and_replace_rotates_the_dev_token():
    first = StringIO()
    call_command("create_api_token", "dev", stdout=first)
    call_command("create_api_token", "dev", "--replace", stdout=StringIO(), stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {first.getvalue().strip()}")
    assert client.get(f"/api/orders/{uuid.uuid4()}/").status_code == 401
    call_command("revoke_api_token", "dev", stdout=StringIO())
    assert not ApiToken.objects.filter(name="dev", revoked_at__isnull=True).exists()
    with pytest.raises(CommandError, match="No active token"):
        call_command("revoke_api_token", "dev", stdout=StringIO())


def test_a_command_called_without_its_argument_is_a_usage_error_not_a_traceback():
    result = subprocess.run(
        [sys.executable, "manage.py", "create_api_token"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "the following arguments are required: name" in result.stderr
    assert "Traceback" not in result.stderr


def test_ensure_database_creates_a_missing_database_once():
    name = f"orders_ensure_{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{name}"
    command = [sys.executable, "manage.py", "ensure_database"]
    try:
        first = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        second = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        assert first.stdout.strip() == "database created", first.stderr
        assert second.stdout.strip() == "database exists", second.stderr
    finally:
        with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.fixture
def scratch_vhost(broker):
    from django.conf import settings

    vhost = f"orders-scratch-{uuid.uuid4().hex[:8]}"
    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    admin.vhost_ensure(vhost, user=user_of(settings.CELERY_BROKER_URL))
    yield broker_url_with_vhost(settings.CELERY_BROKER_URL, vhost)
    admin.vhost_delete(vhost)


def test_declaring_the_topology_twice_is_harmless_and_leaves_nothing_missing(scratch_vhost):
    assert "orders.confirmations" in topology_missing(broker_url=scratch_vhost)
    first = topology_declare(broker_url=scratch_vhost)
    second = topology_declare(broker_url=scratch_vhost)
    assert first == second
    assert topology_missing(broker_url=scratch_vhost) == []


def test_declaring_replaces_the_classic_maintenance_queue_of_an_earlier_version(scratch_vhost):
    from django.conf import settings

    # given the periodic jobs' queue as versions before 2026-12 declared it, a job waiting in it
    with Connection(scratch_vhost) as connection:
        channel = amqp_channel(connection)
        channel.queue_declare(
            "orders.maintenance", durable=True, auto_delete=False, arguments={"x-queue-type": "classic"}
        )
        channel.basic_publish(amqp.Message(b"{}"), exchange="", routing_key="orders.maintenance")
    # when
    declared = topology_declare(broker_url=scratch_vhost)
    # then it is a quorum queue now, and the operator is told what was dropped
    replaced = (
        "queue orders.maintenance (quorum; replaced the classic queue of an earlier version,"
        " its waiting jobs dropped)"
    )
    assert replaced in declared
    queues = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL).queues(quote(vhost_of(scratch_vhost), safe=""))
    assert {queue["name"]: queue["type"] for queue in queues}["orders.maintenance"] == "quorum"
    assert topology_missing(broker_url=scratch_vhost) == []
    # and the next declaration finds nothing to replace
    assert "queue orders.maintenance (quorum)" in topology_declare(broker_url=scratch_vhost)


_BROKER_UNREADY = {"ready": False, "problems": ["broker: not ready (the cause is in this process's log)"]}


@pytest.mark.django_db
def test_readyz_reports_an_undeclared_topology(scratch_vhost, settings, client, caplog):
    settings.CELERY_BROKER_URL = scratch_vhost
    response = client.get("/readyz")
    # /readyz is answered to anyone who reaches it: which part is not ready, the cause in the log
    assert (response.status_code, response.json()) == (503, _BROKER_UNREADY)
    assert "broker: queues not declared: " in caplog.text
    topology_declare(broker_url=scratch_vhost)
    assert client.get("/readyz").json() == {"ready": True, "problems": []}


@pytest.mark.django_db
def test_readyz_reports_an_unreachable_broker_and_keeps_the_cause_to_the_log(settings, client, caplog):
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1/nowhere"
    response = client.get("/readyz")
    assert (response.status_code, response.json()) == (503, _BROKER_UNREADY)
    assert "not ready: broker: ConnectionRefusedError: [Errno 111] Connection refused" in caplog.text
