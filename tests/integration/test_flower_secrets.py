"""bin/flower passes Flower's basic-auth password and the management API's URL (with its
password) through the environment: every user of the host can read a process's command line
(`ps`, /proc/<pid>/cmdline), only its owner its environment. Flower still demands the
password, and still uses that URL."""

import secrets
from pathlib import Path

import pytest
import requests

from tools.drill.processes import ManagedProcess, free_port

# Flower's settings name the test database (pytest-django makes it only for a test that asks).
pytestmark = pytest.mark.django_db


def _command_lines(pid: int) -> list[str]:
    """The command line of the process and of all its descendants, as `ps` shows them."""
    lines = [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()]
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            lines += _command_lines(int(child))
    return lines


def test_flower_s_secrets_are_on_no_command_line_and_its_basic_auth_still_holds(service_env, tmp_path):
    # given Flower started by bin/flower, with a password and a management API password of its own
    password = secrets.token_urlsafe(16)
    management_password = secrets.token_urlsafe(16)
    port = free_port()
    flower = ManagedProcess(
        "flower",
        ["bin/flower"],
        env=service_env(
            FLOWER_BIND="127.0.0.1",
            FLOWER_PORT=str(port),
            FLOWER_BASIC_AUTH=f"ops:{password}",
            FLOWER_BROKER_API=f"http://guest:{management_password}@127.0.0.1:15672/api/",
        ),
        log_path=tmp_path / "flower.log",
    ).start(ready=r"Visit me at", timeout=60)
    url = f"http://127.0.0.1:{port}"
    try:
        # then no command line of it or its children holds either password
        command_lines = _command_lines(flower.pid)
        assert any("flower" in line for line in command_lines), command_lines
        for line in command_lines:
            assert password not in line
            assert management_password not in line
        # and Flower still refuses a request without the password or with a wrong one
        assert requests.get(f"{url}/api/workers", timeout=10).status_code == 401
        assert requests.get(f"{url}/api/workers", auth=("ops", "wrong"), timeout=10).status_code == 401
        assert requests.get(f"{url}/api/workers", auth=("ops", password), timeout=10).status_code == 200
        # and it calls the management API with the environment's URL: RabbitMQ refuses that
        # made-up password (without the option Flower would use the broker URL's guest:guest)
        assert requests.get(f"{url}/broker", auth=("ops", password), timeout=10).status_code == 200
        flower.wait_for_log(r"RabbitMQ management API call failed: HTTP 401", timeout=10)
    finally:
        flower.stop()
