"""SQLite persistence: accepted messages, idempotency records, the request log, the clock offset and
the webhook deliveries that an accepted message schedules (queried by tools/mailsim/webhooks/queue.py).

One connection is shared by all request threads behind a lock, and every write runs in a
``BEGIN IMMEDIATE`` transaction, so taking an idempotency key is atomic: a concurrent request with
the same key sees the ``in_flight`` row. Callers must not sleep while holding the store; every
method returns before any fault delay starts.
"""

import dataclasses
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tools.mailsim.records import (
    ADDED_COLUMNS,
    COMPLETED,
    DELIVERY_COLUMNS,
    IN_FLIGHT,
    MESSAGE_COLUMNS,
    RECORD_COLUMNS,
    REQUEST_COLUMNS,
    SCHEMA,
    Delivery,
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
        self._add_missing_columns()
        # A key left in_flight here belonged to a request that died with the previous process;
        # keeping it would answer 409 to every retry until the window expired.
        self.released_in_flight = self._release_all_in_flight()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _add_missing_columns(self) -> None:
        for table, column, definition in ADDED_COLUMNS:
            present = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _release_all_in_flight(self) -> int:
        with self.transaction() as conn:
            return conn.execute("DELETE FROM idempotency_records WHERE state = ?", (IN_FLIGHT,)).rowcount

    def take_key(
        self, scope: str, key: str, fingerprint: str, now: float, window_seconds: float, wire: str
    ) -> KeyRecord | None:
        """Take ``key`` as in_flight; return None if taken, else the live record that blocks it.

        ``scope`` is the hash that keys the records (the API key, per wire), so one key string
        used on two wires is two records.
        """
        with self.transaction() as conn:
            conn.execute(
                "DELETE FROM idempotency_records WHERE api_key_hash = ? AND idempotency_key = ?"
                " AND created_at <= ?",
                (scope, key, now - window_seconds),
            )
            inserted = conn.execute(
                "INSERT INTO idempotency_records"
                " (api_key_hash, idempotency_key, fingerprint, state, created_at, wire)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (scope, key, fingerprint, IN_FLIGHT, now, wire),
            )
            if inserted.rowcount == 1:
                return None
            row = conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM idempotency_records"
                " WHERE api_key_hash = ? AND idempotency_key = ?",
                (scope, key),
            ).fetchone()
            return _record(row)

    def complete_key(
        self,
        scope: str,
        key: str,
        message: Message,
        answer: tuple[int, bytes],
        deliveries: list[Delivery],
        contents: tuple[bytes, ...] = (),
    ) -> None:
        """Store the message, its webhooks and the answer to replay in one transaction, so none
        exists without the others."""
        status, body = answer
        with self.transaction() as conn:
            _insert_message(conn, message, deliveries, contents)
            conn.execute(
                "UPDATE idempotency_records SET state = ?, response_status = ?, response_body = ?,"
                " message_id = ? WHERE api_key_hash = ? AND idempotency_key = ? AND state = ?",
                (COMPLETED, status, body, message.id, scope, key, IN_FLIGHT),
            )

    def release_key(self, scope: str, key: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "DELETE FROM idempotency_records"
                " WHERE api_key_hash = ? AND idempotency_key = ? AND state = ?",
                (scope, key, IN_FLIGHT),
            )

    def add_message(
        self, message: Message, deliveries: list[Delivery], contents: tuple[bytes, ...] = ()
    ) -> None:
        with self.transaction() as conn:
            _insert_message(conn, message, deliveries, contents)

    def message(self, message_id: str) -> Message | None:
        rows = self.query(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,))
        return _message(rows[0]) if rows else None

    def attachment_content(self, message_id: str, position: int) -> bytes | None:
        rows = self.query(
            "SELECT content FROM attachment_contents WHERE message_id = ? AND position = ?",
            (message_id, position),
        )
        return bytes(rows[0][0]) if rows else None

    def list_messages(self, idempotency_key: str | None = None) -> list[Message]:
        if idempotency_key is None:
            rows = self.query(f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY seq")
        else:
            rows = self.query(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE idempotency_key = ? ORDER BY seq",
                (idempotency_key,),
            )
        return [_message(row) for row in rows]

    def list_key_records(self) -> list[KeyRecord]:
        rows = self.query(f"SELECT {RECORD_COLUMNS} FROM idempotency_records ORDER BY created_at")
        return [_record(row) for row in rows]

    def log_request(self, entry: RequestLogEntry) -> None:
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO requests ({REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                dataclasses.astuple(entry),
            )

    def list_requests(self, idempotency_key: str | None = None) -> list[RequestLogEntry]:
        if idempotency_key is None:
            rows = self.query(f"SELECT {REQUEST_COLUMNS} FROM requests ORDER BY seq")
        else:
            rows = self.query(
                f"SELECT {REQUEST_COLUMNS} FROM requests WHERE idempotency_key = ? ORDER BY seq",
                (idempotency_key,),
            )
        return [RequestLogEntry(*row) for row in rows]

    def load_clock_offset(self) -> float:
        rows = self.query("SELECT value FROM settings WHERE name = 'clock_offset_seconds'")
        return float(rows[0][0]) if rows else 0.0

    def save_clock_offset(self, offset_seconds: float) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO settings (name, value) VALUES ('clock_offset_seconds', ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (repr(offset_seconds),),
            )

    def reset(self) -> None:
        with self.transaction() as conn:
            tables = ("messages", "attachment_contents", "idempotency_records", "requests", "settings")
            for table in (*tables, "webhook_deliveries"):
                conn.execute(f"DELETE FROM {table}")


def _insert_message(
    conn: sqlite3.Connection, message: Message, deliveries: list[Delivery], contents: tuple[bytes, ...]
) -> None:
    # Lists and objects are stored as JSON text; the column order is the dataclass's.
    json_fields = {"recipients", "tags", "headers", "metadata", "reply_to", "attachments"}
    row = tuple(
        json.dumps(getattr(message, f.name)) if f.name in json_fields else getattr(message, f.name)
        for f in dataclasses.fields(message)
    )
    conn.execute(f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES ({_placeholders(len(row))})", row)
    for position, content in enumerate(contents):
        conn.execute(
            "INSERT INTO attachment_contents (message_id, position, content) VALUES (?, ?, ?)",
            (message.id, position, content),
        )
    for delivery in deliveries:
        # seq is the last column and left to SQLite: it orders deliveries due at the same time.
        values = dataclasses.astuple(delivery)[:-1]
        columns = DELIVERY_COLUMNS.rsplit(",", 1)[0]
        conn.execute(
            f"INSERT INTO webhook_deliveries ({columns}) VALUES ({_placeholders(len(values))})", values
        )


def _placeholders(count: int) -> str:
    return ", ".join(["?"] * count)


def _message(row: tuple[Any, ...]) -> Message:
    values = list(row)
    values[4] = tuple(json.loads(values[4]))
    for index in (10, 11, 12, 13, 15):  # tags, headers, metadata, reply_to, attachments
        values[index] = json.loads(values[index])
    return Message(*values)


def _record(row: tuple[Any, ...]) -> KeyRecord:
    values = list(row)
    if values[5] is not None:
        values[5] = bytes(values[5])
    return KeyRecord(*values)
