"""What the simulator keeps: the tables of its SQLite file and the records read from them."""

from dataclasses import dataclass, field
from typing import Any

IN_FLIGHT = "in_flight"
COMPLETED = "completed"

# Webhook delivery states: pending until a 2xx answer (delivered) or the last attempt failed.
PENDING = "pending"
DELIVERED = "delivered"
GIVEN_UP = "given_up"

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT,
    event_id TEXT,
    sender TEXT NOT NULL,
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT,
    html TEXT,
    accepted_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency_records (
    api_key_hash TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
    created_at REAL NOT NULL,
    response_status INTEGER,
    response_body BLOB,
    message_id TEXT,
    PRIMARY KEY (api_key_hash, idempotency_key)
);
CREATE TABLE IF NOT EXISTS requests (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    idempotency_key TEXT,
    event_id TEXT,
    status INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    fault TEXT,
    message_id TEXT
);
CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    wire TEXT NOT NULL,
    event_type TEXT NOT NULL,
    message_id TEXT NOT NULL,
    url TEXT NOT NULL,
    body BLOB NOT NULL,
    due_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'given_up')),
    last_status INTEGER,
    last_error TEXT,
    delivered_at REAL
);
CREATE TABLE IF NOT EXISTS attachment_contents (
    message_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    content BLOB NOT NULL,
    PRIMARY KEY (message_id, position)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, due_at);
"""

# Columns added after the first release: a data dir written by an older simulator gets them on
# open (ALTER TABLE), so its messages and keys stay usable. (table, column, definition)
ADDED_COLUMNS = (
    ("messages", "wire", "TEXT NOT NULL DEFAULT 'resend'"),
    ("messages", "tags", "TEXT NOT NULL DEFAULT '[]'"),
    ("messages", "headers", "TEXT NOT NULL DEFAULT '{}'"),
    ("messages", "metadata", "TEXT NOT NULL DEFAULT '{}'"),
    ("messages", "reply_to", "TEXT NOT NULL DEFAULT '[]'"),
    ("messages", "message_stream", "TEXT"),
    ("messages", "attachments", "TEXT NOT NULL DEFAULT '[]'"),
    ("idempotency_records", "wire", "TEXT NOT NULL DEFAULT 'resend'"),
    ("requests", "wire", "TEXT NOT NULL DEFAULT 'resend'"),
    ("requests", "fingerprint", "TEXT"),
)

MESSAGE_COLUMNS = (
    "id, idempotency_key, event_id, sender, recipients, subject, text, html, accepted_at,"
    " wire, tags, headers, metadata, reply_to, message_stream, attachments"
)
RECORD_COLUMNS = (
    "idempotency_key, fingerprint, state, created_at, response_status, response_body, message_id, wire"
)
REQUEST_COLUMNS = "at, idempotency_key, event_id, status, outcome, fault, message_id, wire, fingerprint"
DELIVERY_COLUMNS = (
    "event_id, wire, event_type, message_id, url, body, due_at, attempts, state, last_status,"
    " last_error, delivered_at, seq"
)


@dataclass(frozen=True)
class Message:
    id: str
    idempotency_key: str | None
    event_id: str | None
    sender: str
    recipients: tuple[str, ...]
    subject: str
    text: str | None
    html: str | None
    accepted_at: float
    wire: str = "resend"
    # As the wire carries them: Resend [{name, value}], Brevo [str], Postmark [Tag] or [].
    tags: list[Any] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    # Postmark's Metadata; the other wires carry metadata in a header (Brevo X-Mailin-custom).
    metadata: dict[str, Any] = field(default_factory=dict)
    reply_to: list[str] = field(default_factory=list)
    message_stream: str | None = None
    # Each attachment's {filename, content_type, size, sha256}; its bytes are in
    # attachment_contents, under the message's id and its position here.
    attachments: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class KeyRecord:
    idempotency_key: str
    fingerprint: str
    state: str
    created_at: float
    response_status: int | None
    response_body: bytes | None
    message_id: str | None
    wire: str = "resend"


@dataclass(frozen=True)
class RequestLogEntry:
    at: float
    idempotency_key: str | None
    event_id: str | None
    status: int
    outcome: str
    fault: str | None
    message_id: str | None
    wire: str = "resend"
    fingerprint: str | None = (
        None  # of the email's content (what the key's dedupe compares); None: unreadable
    )


@dataclass(frozen=True)
class Delivery:
    """One POST of one webhook event; a duplicate re-post is a second row with the same event_id."""

    event_id: str
    wire: str
    event_type: str
    message_id: str
    url: str
    body: bytes
    # Wall-clock time (time.time()), not the simulator clock: webhooks go out in real time.
    due_at: float
    attempts: int = 0
    state: str = PENDING
    last_status: int | None = None
    last_error: str | None = None
    delivered_at: float | None = None
    seq: int | None = None
