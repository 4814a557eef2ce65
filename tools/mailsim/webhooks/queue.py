"""The webhook deliveries in the SQLite store: what is due, and what each attempt did.

Deliveries are inserted with their message (Store.add_message / complete_key), so an accepted
message never lacks its webhooks, and they are persisted: a restarted simulator posts what the
previous one left pending. Times here are wall-clock (time.time()), not the simulator clock.
"""

from typing import Any

from tools.mailsim.records import DELIVERED, DELIVERY_COLUMNS, GIVEN_UP, PENDING, Delivery
from tools.mailsim.store import Store


class DeliveryQueue:
    def __init__(self, store: Store):
        self._store = store

    def due(self, now: float, limit: int = 50) -> list[Delivery]:
        rows = self._store.query(
            f"SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE state = ? AND due_at <= ?"
            " ORDER BY due_at, seq LIMIT ?",
            (PENDING, now, limit),
        )
        return [_delivery(row) for row in rows]

    def next_due_at(self) -> float | None:
        rows = self._store.query("SELECT MIN(due_at) FROM webhook_deliveries WHERE state = ?", (PENDING,))
        return rows[0][0]

    def record_delivered(self, seq: int, status: int, at: float) -> None:
        self._update(
            "attempts = attempts + 1, state = ?, last_status = ?, last_error = NULL, delivered_at = ?",
            (DELIVERED, status, at),
            seq,
        )

    def record_failed(self, seq: int, status: int | None, error: str | None, retry_at: float | None) -> None:
        """One failed attempt; ``retry_at`` None means it was the last one (given up)."""
        values: tuple[object, ...]
        if retry_at is None:
            changes, values = "state = ?", (GIVEN_UP,)
        else:
            changes, values = "due_at = ?", (retry_at,)
        self._update(
            f"attempts = attempts + 1, last_status = ?, last_error = ?, {changes}",
            (status, error, *values),
            seq,
        )

    def list(self, message_id: str | None = None, wire: str | None = None) -> list[Delivery]:
        rows = self._store.query(f"SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries ORDER BY seq")
        deliveries = [_delivery(row) for row in rows]
        return [
            d
            for d in deliveries
            if (message_id is None or d.message_id == message_id) and (wire is None or d.wire == wire)
        ]

    def _update(self, changes: str, values: tuple[Any, ...], seq: int) -> None:
        # Only a pending delivery changes: a reset in the middle of an attempt leaves no row behind.
        with self._store.transaction() as conn:
            conn.execute(
                f"UPDATE webhook_deliveries SET {changes} WHERE seq = ? AND state = ?",
                (*values, seq, PENDING),
            )


def _delivery(row: tuple[Any, ...]) -> Delivery:
    values = list(row)
    values[5] = bytes(values[5])
    return Delivery(*values)
