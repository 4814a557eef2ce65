"""Support for the mail simulator's black-box tests: the simulator as a real process, and a real
HTTP server that plays the product's webhook endpoint and records what the simulator posts."""

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tools.drill.processes import REPO

API_KEY = "test-mail-key"
START_TIMEOUT = 10


class SimProcess:
    """One simulator process on a data dir; stdout carries only the "listening" line."""

    def __init__(self, data_dir: Path, *extra_args: str):
        self.data_dir = data_dir
        # Closed in stop(): the file must outlive __init__ because the child writes to it.
        self.log = open(data_dir.parent / f"{data_dir.name}.stderr.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tools.mailsim",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
                "--api-key",
                API_KEY,
                *extra_args,
            ],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.url = self._read_url()

    def _read_url(self) -> str:
        stdout = self.proc.stdout
        assert stdout is not None  # started with stdout=PIPE
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            if not selector.select(timeout=START_TIMEOUT):
                self.stop(signal.SIGKILL)
                pytest.fail("mailsim did not print its listening line in time")
        line = stdout.readline()
        match = re.fullmatch(r"mailsim listening on (http://127\.0\.0\.1:(\d+))\n", line)
        if not match:
            self.stop(signal.SIGKILL)
            pytest.fail(f"unexpected mailsim output: {line!r}")
        return match.group(1)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.log.close()


@dataclass(frozen=True)
class Received:
    """One webhook POST as the receiver saw it."""

    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    status: int

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class WebhookReceiver:
    """A stdlib HTTP server on a free port that records every request and answers 200, or the
    statuses queued with `answer_with` first (one a request, in order)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._received: list[Received] = []
        self._statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                # Lower-cased names: HTTP header names are case-insensitive (urllib capitalizes them).
                headers = {name.lower(): value for name, value in self.headers.items()}
                status = receiver._record(self.path, headers, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _record(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self._lock:
            status = self._statuses.pop(0) if self._statuses else 200
            self._received.append(Received(path, headers, body, status))
            return status

    def answer_with(self, *statuses: int) -> None:
        with self._lock:
            self._statuses = list(statuses)

    def clear(self) -> None:
        with self._lock:
            self._received, self._statuses = [], []

    def received(self, path: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self._received if path is None or r.path == path]

    def wait_for(self, count: int, path: str | None = None, timeout: float = 10.0) -> list[Received]:
        """The first `count` requests (to `path`), once that many arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            received = self.received(path)
            if len(received) >= count:
                return received
            time.sleep(0.02)
        pytest.fail(f"{count} webhook request(s) to {path or 'any path'} expected; got {self.received(path)}")

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# Sends one message through a real Anymail backend in a process of its own, so the Django
# settings of the test run (the product's) stay untouched. Reads its config as JSON on stdin,
# prints the outcome as JSON: the anymail_status, or the Anymail exception raised.
ANYMAIL_SEND = """
import json, sys
import django
from django.conf import settings

config = json.load(sys.stdin)
settings.configure(EMAIL_BACKEND=config["backend"], ANYMAIL=config["anymail"])
django.setup()
from django.core.mail import EmailMessage
from anymail.exceptions import AnymailError

message = EmailMessage(**config["message"])
message.tags = config.get("tags", [])
message.metadata = config.get("metadata", {})
try:
    message.send()
except AnymailError as exc:
    print(json.dumps({"error": type(exc).__name__, "detail": str(exc)}))
else:
    status = message.anymail_status
    recipients = {address: one.status for address, one in status.recipients.items()}
    print(json.dumps({"message_id": status.message_id, "recipients": recipients}))
"""


def anymail_send(backend: str, anymail_settings: dict, message: dict, **extra) -> dict:
    """Send `message` (EmailMessage keyword arguments) with Anymail's `backend`; `extra` sets
    tags or metadata on it."""
    env = {name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"}
    config = {"backend": backend, "anymail": anymail_settings, "message": message, **extra}
    done = subprocess.run(
        [sys.executable, "-c", ANYMAIL_SEND],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# Hands requests the simulator posted to Anymail's own tracking webhook views, in a process of
# its own with its own Django settings; prints what Anymail made of each, as JSON.
ANYMAIL_TRACK = """
import json, sys
import django
from django.conf import settings

config = json.load(sys.stdin)
settings.configure(ANYMAIL=config["anymail"], ALLOWED_HOSTS=["*"])
django.setup()
from django.core.exceptions import SuspiciousOperation
from django.test import RequestFactory
from anymail.signals import tracking
from anymail.webhooks.brevo import BrevoTrackingWebhookView
from anymail.webhooks.postmark import PostmarkTrackingWebhookView
from anymail.webhooks.resend import ResendTrackingWebhookView

VIEWS = {"resend": ResendTrackingWebhookView, "brevo": BrevoTrackingWebhookView,
         "postmark": PostmarkTrackingWebhookView}
seen = []
def record(sender, event, esp_name, **kwargs):
    seen.append({
        "event_type": event.event_type, "message_id": event.message_id, "event_id": event.event_id,
        "recipient": event.recipient, "tags": event.tags, "metadata": event.metadata,
        "reject_reason": event.reject_reason, "description": event.description,
        "timestamp": event.timestamp.isoformat() if event.timestamp else None,
    })
tracking.connect(record, weak=False)
results = []
for posted in config["posted"]:
    seen.clear()
    request = RequestFactory().post(
        "/", data=posted["body"].encode(), content_type="application/json", headers=posted["headers"]
    )
    try:
        status = VIEWS[posted["wire"]].as_view()(request).status_code
    except SuspiciousOperation:  # a failed validation, which Django's handler answers with 400
        status = 400
    results.append({"status": status, "events": list(seen)})
print(json.dumps(results))
"""


def anymail_track(wire: str, received: list[Received], anymail_settings: dict) -> list[dict]:
    """What Anymail's tracking webhook for `wire` makes of each request the receiver got."""
    wanted = ("svix-id", "svix-timestamp", "svix-signature", "authorization")
    posted = [
        {
            "wire": wire,
            "body": one.body.decode(),
            "headers": {name: value for name, value in one.headers.items() if name.lower() in wanted},
        }
        for one in received
    ]
    env = {name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", ANYMAIL_TRACK],
        input=json.dumps({"anymail": anymail_settings, "posted": posted}),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
