"""The Anymail adapter with Anymail's real Postmark (and Brevo) backend, over real HTTP, against
a small server of this module that speaks Postmark's `POST /email` wire as Anymail's postmark
backend sends and reads it (and Brevo's `POST /v3/smtp/email`, for the one key Anymail can
carry). The settings wiring is checked through `manage.py check` in its own process."""

import json
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from notifications.providers.anymail import AnymailProvider
from notifications.providers.base import KEY_TAG, OutboundEmail, Outcome
from tools.drill.processes import REPO, free_port

POSTMARK_BACKEND = "anymail.backends.postmark.EmailBackend"
TOKEN = "test-token"
INACTIVE = "inactive@example.com"


class FakeEsp(ThreadingHTTPServer):
    """Keeps every request it read; answers as the ESP would, unless `fault` says otherwise:
    ("drop",) closes the connection unanswered, ("stall", seconds) says nothing that long,
    (status,) answers that HTTP status with a JSON error."""

    daemon_threads = True

    def __init__(self):
        self.fault: tuple | None = None
        self.requests: list[dict] = []
        self.brevo_keys: set[str] = set()
        super().__init__(("127.0.0.1", 0), _FakeEspHandler)
        self.url = f"http://127.0.0.1:{self.server_port}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


class _FakeEspHandler(BaseHTTPRequestHandler):
    server: FakeEsp

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "json": body})
        fault = self.server.fault
        if fault == ("drop",):
            return  # an HTTP/1.0 handler closes the connection after this, unanswered
        if fault and fault[0] == "stall":
            time.sleep(fault[1])
            return
        if fault:
            self._answer(fault[0], {"ErrorCode": fault[0], "Message": "fault"}, {"Retry-After": "7"})
        elif self.path == "/email":
            self._postmark(body)
        elif self.path == "/v3/smtp/email":
            self._brevo(body)
        else:
            self._answer(404, {"Message": "no such endpoint"})

    def _postmark(self, body: dict) -> None:
        if self.headers.get("X-Postmark-Server-Token") != TOKEN:
            message = "Request does not contain a valid Server token."
            self._answer(401, {"ErrorCode": 10, "Message": message})
        elif INACTIVE in body["To"]:
            message = (
                "You tried to send to recipient(s) that have been marked as inactive. Found inactive "
                f"addresses: {INACTIVE}. Inactive recipients are ones that have generated a hard "
                "bounce, a spam complaint, or a manual suppression."
            )
            self._answer(422, {"ErrorCode": 406, "Message": message})
        else:
            submitted = datetime.now(UTC).isoformat()
            message_id = str(uuid.uuid4())
            self._answer(
                200,
                {
                    "To": body["To"],
                    "SubmittedAt": submitted,
                    "MessageID": message_id,
                    "ErrorCode": 0,
                    "Message": "OK",
                },
            )

    def _brevo(self, body: dict) -> None:
        key = body["headers"]["idempotencyKey"]
        if key in self.server.brevo_keys:
            self._answer(400, {"code": "duplicate_parameter", "message": "idempotencyKey already used"})
        else:
            self.server.brevo_keys.add(key)
            self._answer(201, {"messageId": f"<{uuid.uuid4()}@smtp-relay.mailin.fr>"})

    def _answer(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def esp():
    server = FakeEsp()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def postmark(esp, settings) -> FakeEsp:
    settings.ANYMAIL_BACKEND = POSTMARK_BACKEND
    settings.ANYMAIL = {"POSTMARK_SERVER_TOKEN": TOKEN, "POSTMARK_API_URL": f"{esp.url}/"}
    settings.MAIL_FROM_ADDRESS = "Orders <orders@example.com>"
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0
    return esp


def _email(key: str = "key-1", to: str = "ada@example.com", html: str = "") -> OutboundEmail:
    return OutboundEmail(
        idempotency_key=key, to=to, subject="Hello", text="Body", event_id="event-1", html=html
    )


def test_an_accepted_email_has_postmarks_message_id_and_our_key_in_its_metadata(postmark):
    result = AnymailProvider().send(_email(html="<p>Body</p>"))
    assert result.outcome == Outcome.ACCEPTED, result
    assert result.http_status == 200
    [request] = postmark.requests
    assert request["path"] == "/email"
    assert request["headers"]["X-Postmark-Server-Token"] == TOKEN
    sent = request["json"]
    assert sent["Metadata"] == {KEY_TAG: "key-1"}
    assert sent["Headers"] == [{"Name": "X-Event-Id", "Value": "event-1"}]
    assert (sent["From"], sent["To"], sent["Subject"]) == (
        "Orders <orders@example.com>",
        "ada@example.com",
        "Hello",
    )
    assert (sent["TextBody"], sent["HtmlBody"]) == ("Body", "<p>Body</p>")
    uuid.UUID(result.provider_message_id)  # Postmark's MessageID, as the server answered it


def test_anymails_single_settings_work_as_well_as_its_dict(postmark, settings):
    settings.ANYMAIL = {}
    settings.ANYMAIL_POSTMARK_SERVER_TOKEN = TOKEN
    settings.ANYMAIL_POSTMARK_API_URL = f"{postmark.url}/"
    assert AnymailProvider().send(_email()).outcome == Outcome.ACCEPTED


def test_an_inactive_recipient_is_permanent_with_postmarks_reason(postmark):
    result = AnymailProvider().send(_email(to=INACTIVE))
    assert result.outcome == Outcome.PERMANENT
    assert (result.http_status, result.error_code) == (422, "406")
    assert "marked as inactive" in result.detail


def test_a_wrong_server_token_is_permanent(postmark, settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "POSTMARK_SERVER_TOKEN": "wrong"}
    result = AnymailProvider().send(_email())
    assert (result.outcome, result.http_status, result.error_code) == (Outcome.PERMANENT, 401, "10")


@pytest.mark.parametrize(
    ("status", "outcome"), [(503, Outcome.TRANSIENT), (429, Outcome.TRANSIENT), (500, Outcome.UNKNOWN)]
)
def test_an_error_status_is_classified_and_sent_once(postmark, status, outcome):
    postmark.fault = (status,)
    result = AnymailProvider().send(_email())
    assert (result.outcome, result.http_status) == (outcome, status)
    if outcome == Outcome.TRANSIENT:
        assert result.retry_after == 7
    assert len(postmark.requests) == 1


@pytest.mark.parametrize("fault", [("drop",), ("stall", 2.0)], ids=["dropped", "no-answer-in-time"])
def test_no_answer_after_the_request_is_unknown_and_sent_once(postmark, fault):
    postmark.fault = fault
    result = AnymailProvider().send(_email())
    assert result.outcome == Outcome.UNKNOWN, result
    time.sleep(0.2)  # a hidden retry would come at once
    assert len(postmark.requests) == 1


def test_a_refused_connection_is_transient(postmark, settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "POSTMARK_API_URL": f"http://127.0.0.1:{free_port()}/"}
    assert AnymailProvider().send(_email()).outcome == Outcome.TRANSIENT


def test_an_invalid_address_is_permanent_before_anything_is_sent(postmark):
    result = AnymailProvider().send(_email(to="not an address"))
    assert result.outcome == Outcome.PERMANENT
    assert "AnymailInvalidAddress" in result.detail
    assert postmark.requests == []


def test_postmark_cannot_dedupe_so_the_adapter_declares_no_key_window(postmark):
    assert AnymailProvider().capabilities.key_window is None


def test_brevo_through_anymail_carries_our_key_and_a_repeat_is_accepted_earlier(esp, settings):
    settings.ANYMAIL_BACKEND = "anymail.backends.brevo.EmailBackend"
    settings.ANYMAIL = {"BREVO_API_KEY": "test-mail-key", "BREVO_API_URL": f"{esp.url}/v3/"}
    provider = AnymailProvider()
    assert provider.capabilities.key_window == timedelta(minutes=15)
    first = provider.send(_email(key="5f0c2b1e-8f55-4b8e-a0a4-2c3b0c9f7e10"))
    again = provider.send(_email(key="5f0c2b1e-8f55-4b8e-a0a4-2c3b0c9f7e10"))
    assert first.outcome == Outcome.ACCEPTED, first
    assert first.provider_message_id.endswith("@smtp-relay.mailin.fr>")
    assert (again.outcome, again.error_code) == (Outcome.ACCEPTED_EARLIER, "duplicate_parameter")
    headers = esp.requests[0]["json"]["headers"]
    assert headers["idempotencyKey"] == "5f0c2b1e-8f55-4b8e-a0a4-2c3b0c9f7e10"
    assert json.loads(headers["X-Mailin-custom"]) == {KEY_TAG: "5f0c2b1e-8f55-4b8e-a0a4-2c3b0c9f7e10"}


@pytest.mark.parametrize(
    ("backend", "anymail", "problem"),
    [
        ("", {}, "ANYMAIL_BACKEND is empty"),
        (POSTMARK_BACKEND, {}, "POSTMARK_SERVER_TOKEN"),
        ("anymail.backends.nowhere.EmailBackend", {}, "cannot be imported"),
        ("anymail.backends.amazon_ses.EmailBackend", {}, "use MAIL_PROVIDER=ses"),
        ("django.core.mail.backends.locmem.EmailBackend", {}, "not an Anymail backend"),
        (
            POSTMARK_BACKEND,
            {"POSTMARK_SERVER_TOKEN": TOKEN, "POSTMARK_API_URL": "ftp://x/"},
            "not an http(s)",
        ),
    ],
)
def test_configuration_names_what_keeps_anymail_from_sending(settings, backend, anymail, problem):
    settings.ANYMAIL_BACKEND, settings.ANYMAIL = backend, anymail
    [found] = AnymailProvider.configuration_problems()
    assert problem in found


def test_a_configured_backend_has_no_problem(postmark):
    assert AnymailProvider.configuration_problems() == []


def _check(**env: str) -> subprocess.CompletedProcess:
    """`manage.py check` in a fresh process with only this environment, as a deployment starts."""
    base = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env={**base, "MAIL_PROVIDER": "anymail", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_environment_gives_anymail_its_settings_in_either_of_its_forms():
    missing = _check()
    assert missing.returncode != 0
    assert "ANYMAIL_BACKEND is empty" in missing.stderr
    without_token = _check(ANYMAIL_BACKEND=POSTMARK_BACKEND)
    assert "POSTMARK_SERVER_TOKEN" in without_token.stderr
    as_json = _check(
        ANYMAIL_BACKEND=POSTMARK_BACKEND, ANYMAIL_SETTINGS=json.dumps({"POSTMARK_SERVER_TOKEN": TOKEN})
    )
    assert as_json.returncode == 0, as_json.stderr
    one_variable = _check(ANYMAIL_BACKEND=POSTMARK_BACKEND, ANYMAIL_POSTMARK_SERVER_TOKEN=TOKEN)
    assert one_variable.returncode == 0, one_variable.stderr
