"""scripts/ensure-services.sh on a bare machine: it finds which of PostgreSQL, RabbitMQ and curl
are missing, and installs them from Debian's or Ubuntu's packages when it runs as root (shown
here with ENSURE_SERVICES_DRY_RUN, which prints the command instead of running it); otherwise
it stops with the exact command to run. The machine is made bare by a PATH that lacks the
service tools; whether the user is root, by a stand-in `id`."""

import os
import subprocess
from pathlib import Path

import pytest

from tools.drill.processes import REPO

SCRIPT = REPO / "scripts" / "ensure-services.sh"
BASICS = ["sh", "grep", "sed", "seq", "sleep", "cat", "ls"]


def _bare_path(tmp_path: Path, *, uid: int, present: tuple[str, ...] = ()) -> str:
    """A PATH with the basic tools, `id` answering `uid`, and stand-ins for `present`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in BASICS:
        found = subprocess.run(
            ["sh", "-c", f"command -v {tool}"], capture_output=True, text=True
        ).stdout.strip()
        (bin_dir / tool).symlink_to(found)
    for name, body in {"id": f"echo {uid}", **dict.fromkeys(present, "exit 0")}.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return str(bin_dir)


def _run(tmp_path: Path, path: str, os_id: str = "debian") -> subprocess.CompletedProcess:
    release = tmp_path / "os-release"
    release.write_text(f'PRETTY_NAME="test"\nID={os_id}\n')
    env = {
        "PATH": path,
        "OS_RELEASE": str(release),
        "ENSURE_SERVICES_DRY_RUN": "1",
        "HOME": os.environ.get("HOME", "/root"),
    }
    return subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)


def test_as_root_on_debian_it_installs_what_is_missing(tmp_path):
    result = _run(tmp_path, _bare_path(tmp_path, uid=0))
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.strip()
        == "would run: apt-get update && apt-get install -y postgresql rabbitmq-server curl"
    )


def test_it_installs_only_the_missing_ones(tmp_path):
    path = _bare_path(tmp_path, uid=0, present=("pg_isready", "pg_ctlcluster", "curl"))
    result = _run(tmp_path, path, os_id="ubuntu")
    assert result.stdout.strip() == "would run: apt-get update && apt-get install -y rabbitmq-server"


def test_without_root_it_stops_with_the_exact_command(tmp_path):
    result = _run(tmp_path, _bare_path(tmp_path, uid=1000))
    assert result.returncode == 1
    assert "Missing: postgresql rabbitmq-server curl" in result.stderr
    assert "sudo apt-get update && sudo apt-get install -y postgresql rabbitmq-server curl" in result.stderr


@pytest.mark.parametrize("os_id", ["fedora", "alpine"])
def test_elsewhere_it_says_what_to_install_and_stops(tmp_path, os_id):
    result = _run(tmp_path, _bare_path(tmp_path, uid=0), os_id=os_id)
    assert result.returncode == 1
    assert "not Debian or Ubuntu: install PostgreSQL 15 and RabbitMQ 3.10 or newer" in result.stderr
    assert "would run" not in result.stdout


def _stand_in(bin_dir: Path, name: str, body: str) -> None:
    (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
    (bin_dir / name).chmod(0o755)


def test_a_running_rabbitmq_that_takes_no_connection_is_never_joined_by_a_second_server(tmp_path):
    # given: the node answers its ping, its port takes no connection (out of file handles, say)
    path = _bare_path(tmp_path, uid=0, present=("pg_isready", "pg_ctlcluster", "curl", "rabbitmq-plugins"))
    bin_dir, started = Path(path), tmp_path / "rabbitmq-server-started"
    _stand_in(bin_dir, "rabbitmq-diagnostics", 'case "$*" in *ping*) exit 0 ;; *) exit 1 ;; esac')
    _stand_in(bin_dir, "rabbitmq-server", f": > {started}")
    # when
    release = tmp_path / "os-release"
    release.write_text("ID=debian\n")
    env = {"PATH": path, "OS_RELEASE": str(release), "ENSURE_SERVICES_WAIT_SECONDS": "2"}
    result = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)
    # then: a clear error, and no second server
    assert result.returncode == 1
    assert "RabbitMQ runs but takes no connection on its port" in result.stderr
    assert "Not starting a second server." in result.stderr
    assert not started.exists()


def test_a_stopped_rabbitmq_is_started(tmp_path):
    path = _bare_path(tmp_path, uid=0, present=("pg_isready", "pg_ctlcluster", "curl", "rabbitmq-plugins"))
    bin_dir, started = Path(path), tmp_path / "rabbitmq-server-started"
    # the node answers nothing until the stand-in server "starts" it
    _stand_in(bin_dir, "rabbitmq-diagnostics", f"test -e {started}")
    _stand_in(bin_dir, "rabbitmq-server", f": > {started}")
    release = tmp_path / "os-release"
    release.write_text("ID=debian\n")
    env = {"PATH": path, "OS_RELEASE": str(release), "ENSURE_SERVICES_WAIT_SECONDS": "2"}
    result = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "starting RabbitMQ" in result.stdout
    assert started.exists()
