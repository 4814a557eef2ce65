"""The `make run` stack the demo talks to: found running, or started in the background."""

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[2]


def answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def stack_ensure(web: str, mailsim: str, *, start_timeout: float = 300) -> int | None:
    """The pid of a `make run` started here, or None when the stack was already up."""
    if answers(f"{web}/readyz") and answers(f"{mailsim}/_sim/health"):
        return None
    log = REPO / "var" / "demo-make-run.log"
    log.parent.mkdir(exist_ok=True)
    print(f"make run is not up: starting it in the background (its output: {log})")
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["make", "run"], cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + start_timeout
    while not (answers(f"{web}/readyz") and answers(f"{mailsim}/_sim/health")):
        if process.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"make run did not come up (exit {process.poll()}); see {log}")
        time.sleep(2)
    time.sleep(5)  # the workers report ready a little after the web
    return process.pid


def manage(*args: str) -> str:
    """A manage.py command of this checkout, with the environment `make run` uses."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def faults_set(mailsim: str, *rules: dict) -> None:
    requests.post(
        f"{mailsim}/_sim/faults", json={"rules": list(rules), "seed": 7}, timeout=5
    ).raise_for_status()
