"""What the simulator keeps: the tables of its SQLite file and the records read from them."""

from dataclasses import dataclass

IN_FLIGHT = "in_flight"
COMPLETED = "completed"

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
"""

MESSAGE_COLUMNS = "id, idempotency_key, event_id, sender, recipients, subject, text, html, accepted_at"
RECORD_COLUMNS = "idempotency_key, fingerprint, state, created_at, response_status, response_body, message_id"
REQUEST_COLUMNS = "at, idempotency_key, event_id, status, outcome, fault, message_id"


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


@dataclass(frozen=True)
class KeyRecord:
    idempotency_key: str
    fingerprint: str
    state: str
    created_at: float
    response_status: int | None
    response_body: bytes | None
    message_id: str | None


@dataclass(frozen=True)
class RequestLogEntry:
    at: float
    idempotency_key: str | None
    event_id: str | None
    status: int
    outcome: str
    fault: str | None
    message_id: str | None
