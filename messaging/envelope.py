"""The message envelope: the only thing that travels on the wire. Ids only, no personal
data; the handler re-reads what it needs from the database.

On the wire: `{event_id, event_type, schema_version, <aggregate>_id, occurred_at}`, e.g.
`order_id` for the order events. Aggregates are identified by UUIDs.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from messaging.registry import EventType, event_types

COMMON_FIELDS = ("event_id", "event_type", "schema_version", "occurred_at")


class EnvelopeError(ValueError):
    """The message cannot be understood; retrying will not change that."""


@dataclass(frozen=True)
class Envelope:
    event_id: uuid.UUID
    event_type: EventType
    schema_version: int
    aggregate_id: uuid.UUID
    occurred_at: datetime

    def as_message(self) -> dict[str, str | int]:
        return {
            "event_id": str(self.event_id),
            "event_type": self.event_type.name,
            "schema_version": self.schema_version,
            self.event_type.aggregate_id_field: str(self.aggregate_id),
            "occurred_at": self.occurred_at.isoformat(),
        }


def envelope_parse(raw: object) -> Envelope:
    if not isinstance(raw, dict):
        raise EnvelopeError(f"The message body is not an event envelope (got {type(raw).__name__}).")
    event_type = event_types().get(raw["event_type"]) if isinstance(raw.get("event_type"), str) else None
    if event_type is None:
        if "event_type" not in raw:
            raise EnvelopeError("The event envelope lacks the field(s): event_type.")
        raise EnvelopeError(f"The event type {raw['event_type']!r} is unknown to this service.")
    fields = (*COMMON_FIELDS, event_type.aggregate_id_field)
    missing = [name for name in fields if name not in raw]
    if missing:
        raise EnvelopeError(f"The event envelope lacks the field(s): {', '.join(missing)}.")
    extra = sorted(set(raw) - set(fields))
    if extra:
        raise EnvelopeError(f"The event envelope has unknown field(s): {', '.join(extra)}.")
    # type() and not isinstance(): True is an int in Python, and not a schema version.
    if type(raw["schema_version"]) is not int or raw["schema_version"] not in event_type.schema_versions:
        raise EnvelopeError(
            f"Schema version {raw['schema_version']!r} of {event_type.name} is not supported "
            f"(supported: {sorted(event_type.schema_versions)})."
        )
    try:
        return Envelope(
            event_id=uuid.UUID(str(raw["event_id"])),
            event_type=event_type,
            schema_version=raw["schema_version"],
            aggregate_id=uuid.UUID(str(raw[event_type.aggregate_id_field])),
            occurred_at=datetime.fromisoformat(str(raw["occurred_at"])),
        )
    except (TypeError, ValueError) as exc:
        raise EnvelopeError(f"The event envelope has a malformed field: {exc}.") from exc
