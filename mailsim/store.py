"""SQLite persistence: accepted messages, idempotency records, the request log and the clock offset.

One connection is shared by all request threads behind a lock, and every write runs in a
``BEGIN IMMEDIATE`` transaction, so taking an idempotency key is atomic: a concurrent request with
the same key sees the ``in_flight`` row. Callers must not sleep while holding the store; every
method returns before any fault delay starts.
"""

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mailsim.records import (
    COMPLETED,
    IN_FLIGHT,
    MESSAGE_COLUMNS,
    RECORD_COLUMNS,
    REQUEST_COLUMNS,
    SCHEMA,
    KeyRecord,
    Message,
    RequestLogEntry,
)


class Store:
    def __init__(self, path: str):
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA)
        # A key left in_flight here belonged to a request that died with the previous process;
        # keeping it would answer 409 to every retry until the window expired.
        self.released_in_flight = self._release_all_in_flight()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _release_all_in_flight(self) -> int:
        with self._transaction() as conn:
            return conn.execute("DELETE FROM idempotency_records WHERE state = ?", (IN_FLIGHT,)).rowcount

    def take_key(
        self, api_key_hash: str, key: str, fingerprint: str, now: float, window_seconds: float
    ) -> KeyRecord | None:
        """Take ``key`` as in_flight; return None if taken, else the live record that blocks it."""
        with self._transaction() as conn:
            conn.execute(
                "DELETE FROM idempotency_records WHERE api_key_hash = ? AND idempotency_key = ?"
                " AND created_at <= ?",
                (api_key_hash, key, now - window_seconds),
            )
            inserted = conn.execute(
                "INSERT INTO idempotency_records"
                " (api_key_hash, idempotency_key, fingerprint, state, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (api_key_hash, key, fingerprint, IN_FLIGHT, now),
            )
            if inserted.rowcount == 1:
                return None
            row = conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM idempotency_records"
                " WHERE api_key_hash = ? AND idempotency_key = ?",
                (api_key_hash, key),
            ).fetchone()
            return _record(row)

    def complete_key(self, api_key_hash: str, key: str, message: Message, status: int, body: bytes) -> None:
        """Store the message and the response to replay in one transaction, so neither exists alone."""
        with self._transaction() as conn:
            _insert_message(conn, message)
            conn.execute(
                "UPDATE idempotency_records SET state = ?, response_status = ?, response_body = ?,"
                " message_id = ? WHERE api_key_hash = ? AND idempotency_key = ? AND state = ?",
                (COMPLETED, status, body, message.id, api_key_hash, key, IN_FLIGHT),
            )

    def release_key(self, api_key_hash: str, key: str) -> None:
        with self._transaction() as conn:
            conn.execute(
                "DELETE FROM idempotency_records"
                " WHERE api_key_hash = ? AND idempotency_key = ? AND state = ?",
                (api_key_hash, key, IN_FLIGHT),
            )

    def add_message(self, message: Message) -> None:
        with self._transaction() as conn:
            _insert_message(conn, message)

    def list_messages(self, idempotency_key: str | None = None) -> list[Message]:
        if idempotency_key is None:
            rows = self._query(f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY seq")
        else:
            rows = self._query(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE idempotency_key = ? ORDER BY seq",
                (idempotency_key,),
            )
        return [_message(row) for row in rows]

    def list_key_records(self) -> list[KeyRecord]:
        rows = self._query(f"SELECT {RECORD_COLUMNS} FROM idempotency_records ORDER BY created_at")
        return [_record(row) for row in rows]

    def log_request(self, entry: RequestLogEntry) -> None:
        with self._transaction() as conn:
            conn.execute(
                f"INSERT INTO requests ({REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    entry.at,
                    entry.idempotency_key,
                    entry.event_id,
                    entry.status,
                    entry.outcome,
                    entry.fault,
                    entry.message_id,
                ),
            )

    def list_requests(self, idempotency_key: str | None = None) -> list[RequestLogEntry]:
        if idempotency_key is None:
            rows = self._query(f"SELECT {REQUEST_COLUMNS} FROM requests ORDER BY seq")
        else:
            rows = self._query(
                f"SELECT {REQUEST_COLUMNS} FROM requests WHERE idempotency_key = ? ORDER BY seq",
                (idempotency_key,),
            )
        return [RequestLogEntry(*row) for row in rows]

    def load_clock_offset(self) -> float:
        rows = self._query("SELECT value FROM settings WHERE name = 'clock_offset_seconds'")
        return float(rows[0][0]) if rows else 0.0

    def save_clock_offset(self, offset_seconds: float) -> None:
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO settings (name, value) VALUES ('clock_offset_seconds', ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (repr(offset_seconds),),
            )

    def reset(self) -> None:
        with self._transaction() as conn:
            for table in ("messages", "idempotency_records", "requests", "settings"):
                conn.execute(f"DELETE FROM {table}")


def _insert_message(conn: sqlite3.Connection, message: Message) -> None:
    conn.execute(
        f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            message.id,
            message.idempotency_key,
            message.event_id,
            message.sender,
            json.dumps(list(message.recipients)),
            message.subject,
            message.text,
            message.html,
            message.accepted_at,
        ),
    )


def _message(row: tuple[Any, ...]) -> Message:
    values = list(row)
    values[4] = tuple(json.loads(values[4]))
    return Message(*values)


def _record(row: tuple[Any, ...]) -> KeyRecord:
    values = list(row)
    if values[5] is not None:
        values[5] = bytes(values[5])
    return KeyRecord(*values)
