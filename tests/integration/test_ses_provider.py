"""The SES adapter against a real moto server process (moto's SES v2 over HTTP, which boto3
talks to as it talks to AWS), and against a small HTTP server of this module for what moto
does not do: drop the connection after reading the request, stall, answer 5xx or throttle."""

import base64
import email
import email.policy
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3  # type: ignore[import-untyped]  # no stubs (as in notifications/providers/ses.py)
import pytest
import requests
from botocore.config import Config  # type: ignore[import-untyped]
from botocore.exceptions import ConnectionClosedError  # type: ignore[import-untyped]

from notifications.providers import ses
from notifications.providers.attachments import TOO_LARGE
from notifications.providers.base import KEY_TAG, Attachment, OutboundEmail, Outcome
from notifications.providers.ses import SesProvider
from tests.pdf_files import pdf_text, pdf_with_text
from tools.drill.processes import REPO, ManagedProcess, free_port

REGION = "eu-west-1"
SENDER = "orders@example.com"


class Moto:
    """moto's server mode: its state (`/moto-api/data.json`) and the requests it recorded."""

    def __init__(self, url: str):
        self.url = url

    def reset(self) -> None:
        requests.post(f"{self.url}/moto-api/reset", timeout=5).raise_for_status()
        requests.post(f"{self.url}/moto-api/recorder/reset-recording", timeout=5).raise_for_status()
        requests.post(f"{self.url}/moto-api/recorder/start-recording", timeout=5).raise_for_status()

    def sent_messages(self) -> list[dict]:
        return requests.get(f"{self.url}/moto-api/data.json", timeout=5).json()["ses"]["Message"]

    def send_requests(self) -> list[dict]:
        """The SendEmail requests moto received, each with its headers and JSON body."""
        text = requests.get(f"{self.url}/moto-api/recorder/download-recording", timeout=5).text
        entries = [json.loads(line) for line in text.splitlines() if line]
        return [
            {"headers": entry["headers"], "body": json.loads(base64.b64decode(entry["body"]))}
            for entry in entries
            if entry["url"].endswith("/v2/email/outbound-emails")
        ]

    def verify_sender(self, address: str) -> None:
        # As on AWS, SES sends only from a verified identity (moto checks it on SendEmail).
        client = boto3.session.Session().client("sesv2", region_name=REGION, endpoint_url=self.url)
        client.create_email_identity(EmailIdentity=address)


@pytest.fixture(scope="module")
def moto_process(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("moto")
    process = ManagedProcess(
        "moto",
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
        env={
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            # The recorder's file, out of the repository (moto writes it in its working directory).
            "MOTO_RECORDER_FILEPATH": str(workdir / "recording.jsonl"),
        },
        log_path=workdir / "moto.log",
    ).start(ready=r"Running on http://\S+")
    yield process
    process.stop()


@pytest.fixture(autouse=True)
def aws_environment(monkeypatch):
    """Dummy credentials for boto3's chain, and nothing of this machine's own AWS setup."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def moto(moto_process, settings) -> Moto:
    url = moto_process.wait_for_log(r"Running on (http://[\d.:]+)", timeout=1).group(1)
    settings.AWS_SES_REGION, settings.AWS_SES_ENDPOINT_URL = REGION, url
    settings.MAIL_FROM_ADDRESS = f"Orders <{SENDER}>"
    moto = Moto(url)
    moto.reset()
    return moto


def _email(key: str = "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10", html: str = "") -> OutboundEmail:
    return OutboundEmail(
        idempotency_key=key, to="ada@example.com", subject="Hello", text="Body", event_id="event-1", html=html
    )


def test_an_accepted_email_is_what_moto_sent_with_our_key_as_its_tag(moto, settings):
    settings.AWS_SES_CONFIGURATION_SET = "orders-events"
    moto.verify_sender(SENDER)
    result = SesProvider().send(_email(html="<p>Body</p>"))
    assert result.outcome == Outcome.ACCEPTED, result
    [message] = moto.sent_messages()
    assert message["id"] == result.provider_message_id
    assert message["subject"] == "Hello"
    assert message["destinations"] == {"ToAddresses": ["ada@example.com"]}
    assert message["source"] == f"Orders <{SENDER}>"
    # moto keeps neither tags nor headers: the request it received shows them.
    [request] = moto.send_requests()
    body = request["body"]
    assert body["EmailTags"] == [{"Name": KEY_TAG, "Value": "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"}]
    assert body["ConfigurationSetName"] == "orders-events"
    simple = body["Content"]["Simple"]
    assert simple["Headers"] == [
        {"Name": "X-Event-Id", "Value": "event-1"},
        # what Anymail's SES tracking webhook reads the metadata from: the key, not the address
        {"Name": "X-Metadata", "Value": '{"idempotency_key": "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"}'},
    ]
    assert simple["Body"]["Text"]["Data"] == "Body"
    assert simple["Body"]["Html"]["Data"] == "<p>Body</p>"
    # botocore announces its attempt budget on the wire: one attempt, no retries.
    assert request["headers"]["Amz-Sdk-Request"] == "attempt=1; max=1"


def test_an_unverified_sender_is_permanent_with_ses_reason(moto):
    result = SesProvider().send(_email())
    assert result.outcome == Outcome.PERMANENT
    assert result.http_status == 400
    assert result.error_code == "MessageRejected"
    assert "not verified" in result.detail
    assert moto.sent_messages() == []


def test_an_endpoint_where_nothing_listens_is_transient(moto, settings):
    settings.AWS_SES_ENDPOINT_URL = f"http://127.0.0.1:{free_port()}"
    assert SesProvider().send(_email()).outcome == Outcome.TRANSIENT


class FakeSes(ThreadingHTTPServer):
    """Reads every request whole, keeps it, and answers with `answer`: ("drop",) closes the
    connection without a word, ("stall", seconds) says nothing for that long, and
    (status, code, message) is an error as AWS's JSON APIs send it."""

    daemon_threads = True

    def __init__(self, answer: tuple):
        self.answer = answer
        self.requests: list[dict] = []
        super().__init__(("127.0.0.1", 0), _FakeSesHandler)
        self.url = f"http://127.0.0.1:{self.server_port}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


class _FakeSesHandler(BaseHTTPRequestHandler):
    server: FakeSes

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append({"path": self.path, "body": body})
        kind, *args = self.server.answer
        if kind == "drop":
            return  # an HTTP/1.0 handler closes the connection after this, unanswered
        if kind == "stall":
            time.sleep(args[0])
            return
        status, code, message = kind, *args
        payload = json.dumps({"message": message}).encode()
        self.send_response(status)
        self.send_header("x-amzn-ErrorType", code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_ses(settings):
    """`fake_ses(answer)`: a FakeSes the adapter sends to."""
    started = []
    settings.AWS_SES_REGION = REGION
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0

    def start(answer: tuple) -> FakeSes:
        started.append(FakeSes(answer))
        settings.AWS_SES_ENDPOINT_URL = started[-1].url
        return started[-1]

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("answer", [("drop",), ("stall", 2.0)], ids=["dropped", "no-answer-in-time"])
def test_no_answer_after_the_request_is_unknown_and_botocore_sent_it_once(fake_ses, answer):
    ses = fake_ses(answer)
    result = SesProvider().send(_email())
    assert result.outcome == Outcome.UNKNOWN, result
    time.sleep(0.2)  # a hidden retry would come at once
    assert [request["path"] for request in ses.requests] == ["/v2/email/outbound-emails"]


def test_the_fake_server_sees_a_retry_when_botocore_is_allowed_one(fake_ses):
    # The count of one above proves something only if a retry would show: botocore's own
    # standard mode resends after a dropped connection.
    ses = fake_ses(("drop",))
    client = boto3.session.Session().client(
        "sesv2",
        region_name=REGION,
        endpoint_url=ses.url,
        config=Config(retries={"mode": "standard", "total_max_attempts": 2}),
    )
    with pytest.raises(ConnectionClosedError):
        client.send_email(
            FromEmailAddress=SENDER,
            Destination={"ToAddresses": ["ada@example.com"]},
            Content={"Simple": {"Subject": {"Data": "Hello"}, "Body": {"Text": {"Data": "Body"}}}},
        )
    assert len(ses.requests) == 2


@pytest.mark.parametrize(
    ("status", "code", "outcome"),
    [
        (429, "TooManyRequestsException", Outcome.TRANSIENT),
        (400, "ThrottlingException", Outcome.TRANSIENT),
        (503, "ThrottlingException", Outcome.TRANSIENT),
        (400, "LimitExceededException", Outcome.TRANSIENT),
        (400, "SendingPausedException", Outcome.TRANSIENT),
        (503, "ServiceUnavailable", Outcome.UNKNOWN),
        (500, "InternalFailure", Outcome.UNKNOWN),
        (400, "AccountSuspendedException", Outcome.PERMANENT),
        (400, "MailFromDomainNotVerifiedException", Outcome.PERMANENT),
        (400, "BadRequestException", Outcome.PERMANENT),
        (404, "NotFoundException", Outcome.PERMANENT),
        (403, "AccessDeniedException", Outcome.PERMANENT),
    ],
)
def test_each_ses_error_is_classified_and_sent_once(fake_ses, status, code, outcome):
    ses = fake_ses((status, code, f"{code} from the fake"))
    result = SesProvider().send(_email())
    assert (result.outcome, result.http_status, result.error_code) == (outcome, status, code)
    assert result.detail == f"{code} from the fake"
    assert len(ses.requests) == 1


def test_configuration_names_a_missing_region_and_missing_credentials(settings, monkeypatch):
    settings.AWS_SES_REGION = ""
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    problems = SesProvider.configuration_problems()
    assert len(problems) == 2
    assert "AWS_SES_REGION" in problems[0]
    assert "No AWS credentials" in problems[1]


def test_configuration_with_a_region_and_credentials_has_no_problem(settings):
    settings.AWS_SES_REGION, settings.AWS_SES_ENDPOINT_URL = REGION, ""
    assert SesProvider.configuration_problems() == []


def test_ses_cannot_dedupe_so_it_declares_no_key_window():
    assert SesProvider.capabilities.key_window is None
    assert not SesProvider.capabilities.dedupes


def test_a_process_without_a_region_or_credentials_refuses_to_start_and_says_why():
    # A fresh process with only this environment, as a deployment starts one.
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": "/tmp",
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "MAIL_PROVIDER": "ses",
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "notifications.E004" in result.stderr
    assert "AWS_SES_REGION is empty" in result.stderr
    assert "No AWS credentials found" in result.stderr


INVOICE = pdf_with_text("Invoice INV-2024-0042 total 49.90 EUR")


def _raw_sent(moto: Moto) -> tuple[dict, email.message.EmailMessage]:
    """The one SendEmail request moto received, and its Content.Raw as the MIME message."""
    [request] = moto.send_requests()
    raw = base64.b64decode(request["body"]["Content"]["Raw"]["Data"])
    return request["body"], email.message_from_bytes(raw, policy=email.policy.default)


def test_an_invoice_goes_as_a_raw_message_with_our_headers_tags_and_its_bytes(moto, settings):
    settings.AWS_SES_CONFIGURATION_SET = "orders-events"
    moto.verify_sender(SENDER)
    sent = replace(
        _email(html="<p>Body</p>"), attachments=(Attachment("INV-42.pdf", "application/pdf", INVOICE),)
    )
    result = SesProvider().send(sent)
    assert result.outcome == Outcome.ACCEPTED, result
    body, message = _raw_sent(moto)
    assert body["EmailTags"] == [{"Name": KEY_TAG, "Value": "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"}]
    assert body["ConfigurationSetName"] == "orders-events"
    assert body["Destination"] == {"ToAddresses": ["ada@example.com"]}
    assert message["X-Event-Id"] == "event-1"
    assert json.loads(message["X-Metadata"]) == {KEY_TAG: "6d0c3c1e-3f55-5b8e-a0a4-2c3b0c9f7e10"}
    assert message["Subject"] == "Hello"
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    assert plain is not None
    assert html is not None
    assert plain.get_content().strip() == "Body"
    assert html.get_content().strip() == "<p>Body</p>"
    [attachment] = message.iter_attachments()
    assert attachment.get_filename() == "INV-42.pdf"
    assert attachment.get_content_type() == "application/pdf"
    content = attachment.get_content()
    assert hashlib.sha256(content).digest() == hashlib.sha256(INVOICE).digest()
    assert "Invoice INV-2024-0042" in pdf_text(content)


@pytest.mark.parametrize(
    ("name", "arrives_as"),
    [
        ('Rechnung "Q1"; filename=evil.exe.pdf', 'Rechnung "Q1"; filename=evil.exe.pdf'),
        ("Счёт №42 März.pdf", "Счёт №42 März.pdf"),
        ("../../etc/passwd.pdf", ".._.._etc_passwd.pdf"),
    ],
)
def test_a_hostile_name_is_encoded_in_its_header_and_breaks_no_other(moto, name, arrives_as):
    moto.verify_sender(SENDER)
    sent = replace(_email(), attachments=(Attachment(name, "application/pdf", INVOICE),))
    assert SesProvider().send(sent).outcome == Outcome.ACCEPTED
    _, message = _raw_sent(moto)
    assert sorted(message.keys()) == sorted(
        ["From", "To", "Subject", "Date", "X-Event-Id", "X-Metadata", "MIME-Version", "Content-Type"]
    )
    [attachment] = message.iter_attachments()
    assert attachment.get_filename() == arrives_as
    assert attachment.get_content() == INVOICE


def test_a_line_break_in_a_name_or_type_is_refused_before_ses_is_called(moto):
    moto.verify_sender(SENDER)
    for hostile in (
        Attachment("a.pdf\r\nBcc: victim@example.com", "application/pdf", INVOICE),
        Attachment("a.pdf\nBcc: victim@example.com", "application/pdf", INVOICE),
        Attachment("a.pdf", "application/pdf\r\nBcc: victim@example.com", INVOICE),
    ):
        result = SesProvider().send(replace(_email(), attachments=(hostile,)))
        assert (result.outcome, result.error_code) == (Outcome.PERMANENT, "attachment_invalid"), result
    assert moto.send_requests() == []


def test_an_email_over_ses_v2s_limit_is_refused_before_any_call(moto):
    moto.verify_sender(SENDER)
    # 30 MB of file is over 40 MB once in MIME's base64.
    big = Attachment("scan.pdf", "application/pdf", bytes(ses.MAX_MESSAGE_BYTES * 3 // 4))
    result = SesProvider().send(replace(_email(), attachments=(big,)))
    assert (result.outcome, result.error_code) == (Outcome.PERMANENT, TOO_LARGE)
    assert "SES's limit of 40.0 MB" in result.detail
    assert moto.send_requests() == []
