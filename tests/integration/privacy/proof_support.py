"""What the erasure proof (test_erasure_proof.py) reads and searches, as an auditor would: a
dump of the whole test database, every message in the test vhost's queues (read without
consuming it), the log files of the processes the test started, and the reconciliation's books
of one day; and the shop's and its platform's requests to the web process, over real HTTP."""

import base64
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import requests
from django.conf import settings
from django.db import connection

from config.settings.test import TEST_RABBITMQ_VHOST
from operations.reconciliation.run import reconcile_run
from tests import shopify_payloads as shopify

# What is searched for, by what it is ("address", "last name", ...).
Needles = dict[str, re.Pattern[str]]
EXCERPT = 60  # characters shown on either side of a hit


def needles_of(*, address: str, name: str, street: str) -> Needles:
    """A customer's personal data as regular expressions, all matched in any case."""
    first, last = name.split()
    # The address also as a URL or a JSON log line would carry it: percent-encoded, escaped.
    forms = [address, quote(address), address.replace("@", "\\u0040")]
    return {
        "address": re.compile("|".join(re.escape(form) for form in forms), re.IGNORECASE),
        "name": re.compile(re.escape(name), re.IGNORECASE),
        # As a word: "ada" is inside "metadata" and "Canada", and hex digits surround it in ids.
        "first name": re.compile(rf"\b{re.escape(first)}\b", re.IGNORECASE),
        "last name": re.compile(re.escape(last), re.IGNORECASE),
        "street": re.compile(re.escape(street), re.IGNORECASE),
    }


# What an erasure keeps as it is, by law: the invoices and credit notes (docs/personal-data.md);
# the tests check them apart (the erasure's record counts them as kept).
KEPT_LEGAL_RECORDS = ("orders_invoice",)


def database_dump() -> str:
    """Every row of every table of the test database, as `pg_dump --data-only` writes it, but
    the legal records an erasure keeps (KEPT_LEGAL_RECORDS)."""
    db = connection.settings_dict
    kept = [f"--exclude-table-data={table}" for table in KEPT_LEGAL_RECORDS]
    done = subprocess.run(
        [
            "pg_dump",
            "--data-only",
            *kept,
            "-h",
            db["HOST"],
            "-p",
            str(db["PORT"]),
            "-U",
            db["USER"],
            db["NAME"],
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, **({"PGPASSWORD": db["PASSWORD"]} if db["PASSWORD"] else {})},
    )
    return done.stdout


def dump_hits(dump: str, needles: Needles) -> list[str]:
    """Each hit in the dump, with the table and column it is in (read from the COPY blocks)."""
    hits: list[str] = []
    table, columns = "", []
    for line in dump.splitlines():
        copy = re.match(r"COPY (\S+) \((.*)\) FROM stdin;$", line)
        if copy:
            table, columns = copy.group(1), [c.strip().strip('"') for c in copy.group(2).split(",")]
            continue
        if line == "\\.":
            table, columns = "", []
            continue
        values = line.split("\t") if table else [line]
        for index, value in enumerate(values):
            where = f"{table}.{columns[index]}" if table and index < len(columns) else "outside a table"
            hits.extend(f"{what} in {where}: {excerpt}" for what, excerpt in _matches(value, needles))
    return hits


def kinds_found(hits: list[str]) -> set[str]:
    """What the hits found ("address", "street", ...), whatever the place."""
    return {hit.split(" in ", 1)[0] for hit in hits}


def text_hits(texts: dict[str, str], needles: Needles) -> list[str]:
    """Each hit in the texts (a log file, a queue's message), with its source and line."""
    hits: list[str] = []
    for source, text in texts.items():
        for number, line in enumerate(text.splitlines(), start=1):
            hits.extend(
                f"{what} in {source}, line {number}: {excerpt}" for what, excerpt in _matches(line, needles)
            )
    return hits


def _matches(value: str, needles: Needles) -> list[tuple[str, str]]:
    found = []
    for what, needle in needles.items():
        match = needle.search(value)
        if match:
            found.append((what, value[max(0, match.start() - EXCERPT) : match.end() + EXCERPT]))
    return found


def queue_messages_peek() -> dict[str, list[str]]:
    """Every message in every queue of the test vhost, dead-letter queues included, by queue:
    its body and its properties (headers among them) as text. Read through the management
    API's get with `ack_requeue_true`: each message read goes back to its queue."""
    parts = urlsplit(settings.RABBITMQ_MANAGEMENT_URL)
    vhost = quote(TEST_RABBITMQ_VHOST, safe="")
    api = f"{parts.scheme}://{parts.hostname}:{parts.port or 15672}/api/queues/{vhost}"
    auth = (parts.username or "guest", parts.password or "guest")
    listing = requests.get(api, params={"columns": "name,exclusive,messages"}, auth=auth, timeout=10)
    listing.raise_for_status()
    read: dict[str, list[str]] = {}
    for queue in listing.json():
        if queue["exclusive"]:
            # A worker's remote-control queue (pidbox): only its own connection may read it, so
            # it is left unread only while RabbitMQ says it holds nothing.
            assert not queue.get("messages"), f"{queue['name']} holds messages no one else can read"
            continue
        got = requests.post(
            f"{api}/{quote(queue['name'], safe='')}/get",
            # More than a queue of this test ever holds: the listing's counts lag by seconds.
            json={"count": 10_000, "ackmode": "ack_requeue_true", "encoding": "auto"},
            auth=auth,
            timeout=30,
        )
        assert got.status_code == 200, f"{queue['name']}: {got.status_code} {got.text}"
        read[queue["name"]] = [_message_text(message) for message in got.json()]
    return read


def _message_text(message: dict[str, Any]) -> str:
    body = message["payload"]
    if message["payload_encoding"] == "base64":  # not UTF-8: searched as decoded bytes
        body = base64.b64decode(body).decode("utf-8", errors="replace")
    return body + "\n" + json.dumps(message["properties"], ensure_ascii=False)


def log_texts(paths: list[Path]) -> dict[str, str]:
    return {path.name: path.read_text(errors="replace") for path in paths}


def day_books(day: str) -> list[dict[str, Any]]:
    """The reconciliation run now, its ledger rows of `day` (ISO date): per email kind and
    currency, the counts and order amounts accepted, sent, closed and still open."""
    return [row for row in reconcile_run().ledger if row["day"] == day]


class ShopOverHttp:
    """What a shop (the order API) and its Shopify store (the webhook) send to the web process."""

    def __init__(self, web_url: str, api_token: str, *, shop_slug: str):
        self.web_url = web_url
        self.shop_slug = shop_slug
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"Bearer {api_token}"

    def order_place(self, body: dict[str, Any]) -> str:
        """The order's id."""
        response = self.api.post(f"{self.web_url}/api/orders/", json=body, timeout=20)
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def shopify_deliver(self, topic: str, payload: dict[str, Any], event_id: str) -> None:
        body = shopify.body_of(payload)
        # signed_headers gives them as Django's test client takes them: HTTP_X_SHOPIFY_TOPIC.
        django_headers = shopify.signed_headers(body, topic=topic, event_id=event_id)
        headers = {k.removeprefix("HTTP_").replace("_", "-"): v for k, v in django_headers.items()}
        headers["Content-Type"] = "application/json"
        url = f"{self.web_url}/shops/{self.shop_slug}/webhook"
        response = requests.post(url, data=body, headers=headers, timeout=20)
        assert response.status_code == 200, response.text


def provider_webhooks_to(mailsim_url: str, web_url: str, *, signing_key: str) -> None:
    """The simulated provider posts its delivery events (sent, delivered, bounced) to the web
    process, signed as Resend signs them; the simulator's reset restores its settings."""
    settings_update = {
        "urls": {"resend": f"{web_url}/webhooks/resend/"},
        "resend_secret": signing_key,
        "delivery_delay_seconds": 0.1,
    }
    requests.post(f"{mailsim_url}/_sim/webhooks", json=settings_update, timeout=5).raise_for_status()


def provider_webhooks_sent(mailsim_url: str) -> list[dict[str, Any]]:
    return requests.get(f"{mailsim_url}/_sim/webhooks", timeout=5).json()["deliveries"]
