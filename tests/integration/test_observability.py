"""Health that turns with its dependencies, the worker's liveness check, the dashboard's
permission: gunicorn and Celery processes on the real PostgreSQL and RabbitMQ. (Metrics,
logs and the dashboard's figures on the whole stack: tests/system/test_observability.py.)"""

import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings

from tests.integration.tcp_proxy import TcpProxy
from tests.waiting import wait_until
from tools.drill.processes import ManagedProcess, free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


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
            # the part named, its cause (a host, a port, a user name) only in the log
            assert down["problems"] == [f"{dependency} not ready (the cause is in this process's log)"]
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
    ready = re.search(r"(test\d+@\S+) ready", worker.log_text())
    assert ready is not None, "the worker logs its name when ready"
    name = ready.group(1)
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


def test_the_dashboard_is_for_staff_only(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    assert client.get("/admin/dashboard/").status_code == 302
