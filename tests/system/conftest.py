"""The whole stack of `make run`, and a browser, for the system tests."""

import base64
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.conftest import MIGRATION_ROWS
from tests.migration_rows import database_empty
from tests.system.browser import CHROMIUM, CHROMIUM_ARGS
from tests.waiting import answers, wait_until
from tools.drill.processes import REPO, ManagedProcess, free_port, process_env

# Made per run, like `make run` does (never a committed secret).
WEBHOOK_SIGNING_KEY = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
WEBHOOK_BASIC_AUTH = "sim:" + secrets.token_urlsafe(12)


@contextmanager
def stack_running(broker_url: str, database_url: str, workdir: Path) -> Iterator[dict]:
    """The Procfile of `make run` under honcho: web (gunicorn), worker, relay, beat, Flower and
    the mail simulator, on free ports, against the test database and vhost; their state files
    under `workdir`. Yields their URLs by name, and the honcho process as "process"."""
    ports = {"web": free_port(), "flower": free_port(), "mailsim": free_port()}
    mail_url = f"http://127.0.0.1:{ports['mailsim']}"
    env = process_env(
        database_url=database_url,
        broker_url=broker_url,
        mail_url=mail_url,
        workdir=workdir,  # the mail simulator's store, beat's schedule, Prometheus' files
        WEB_PORT=str(ports["web"]),
        FLOWER_PORT=str(ports["flower"]),
        FLOWER_BASIC_AUTH="ops:test-password",
        MAILSIM_PORT=str(ports["mailsim"]),
        OUTBOX_SWEEP_INTERVAL_SECONDS="1",
        # what `make run` generates into var/: the simulator signs its webhooks, the web checks them
        RESEND_WEBHOOK_SECRET=WEBHOOK_SIGNING_KEY,
        MAILSIM_RESEND_WEBHOOK_SECRET=WEBHOOK_SIGNING_KEY,
        ANYMAIL_WEBHOOK_SECRET=WEBHOOK_BASIC_AUTH,
        MAILSIM_WEBHOOK_BASIC_AUTH=WEBHOOK_BASIC_AUTH,
    )
    honcho = ManagedProcess(
        "honcho",
        [str(Path(sys.executable).parent / "honcho"), "start", "-f", str(REPO / "Procfile")],
        env=env,
        log_path=workdir / "stack.log",
    )
    honcho.start(ready=r"worker@\S+ ready\.", timeout=90)
    try:
        honcho.wait_for_log(r"relay@\S+ ready\.", timeout=60)
        wait_until(lambda: answers(f"http://127.0.0.1:{ports['web']}/healthz"), timeout=30, message="web up")
        wait_until(lambda: answers(f"{mail_url}/_sim/health"), timeout=30, message="mailsim up")
        yield {name: f"http://127.0.0.1:{port}" for name, port in ports.items()} | {"process": honcho}
    finally:
        honcho.stop(timeout=30)


@pytest.fixture
def stack(broker, processes_database_url, tmp_path: Path):
    """The whole stack of `make run` for one test (`stack_running`)."""
    with stack_running(broker, processes_database_url, tmp_path) as urls:
        yield urls


@pytest.fixture(scope="module")
def module_stack(request, broker, processes_database_url, django_db_blocker, tmp_path_factory):
    """One whole stack for a module, and the test database open to the module's tests for as
    long as the stack runs. They are not transactional tests: the stack's processes write all
    the time (beat's sweeps, the relay), and a flush between two tests would race them for
    TRUNCATE's locks, a deadlock PostgreSQL ends by failing one side, at times the flush. The
    database is emptied once, after the stack has stopped; each test reads only its own rows."""
    dump, _ = request.config.stash[MIGRATION_ROWS]
    with django_db_blocker.unblock():
        try:
            with stack_running(broker, processes_database_url, tmp_path_factory.mktemp("stack")) as urls:
                yield urls
        finally:
            database_empty(dump)


@pytest.fixture
def page():
    """A Chromium page (tests/system/browser.py)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        yield page
        browser.close()


@pytest.fixture
def screenshots(tmp_path) -> Path:
    return REPO / "docs" / "screenshots" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path
