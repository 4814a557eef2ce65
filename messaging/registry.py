"""Event types: what each one is about, which queue consumes it, which handler runs it and
what guarantee it gets.

The backbone knows no feature. Each feature declares the event types it consumes in a
catalogue module (a module with an `EVENT_TYPES` list, e.g. `notifications/events.py`), and
settings name the catalogues (`MESSAGING_EVENT_CATALOGUES`), the way Django finds its
`EMAIL_BACKEND`. The relay (routing), the topology (queues and bindings), the outbox (which
events may be written) and the dispatcher (which handler to run) all read this one registry.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from functools import cache
from importlib import import_module
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string


class Guarantee(StrEnum):
    # Outbox + inbox (+ the handler's own idempotency, e.g. a provider key): the effect
    # happens once.
    EFFECT_ONCE = "effect-once"
    # Outbox, no inbox: never lost, but a redelivered event runs its handler again.
    AT_LEAST_ONCE = "at-least-once"


class UnknownEventType(LookupError):
    """No catalogue declares this event type: nothing would consume it."""


@dataclass(frozen=True)
class EventType:
    name: str  # also the routing key on the events exchange
    aggregate: str  # what the event is about; its id travels as `<aggregate>_id`
    queue: str  # exactly one work queue per event type, so a retry never fans out
    # Dotted path of `handler(*, envelope, delivery) -> str`, run by the event task. An
    # effect-once handler writes its inbox row (messaging.inbox) with its final result.
    handler: str
    inbox_key: str  # the inbox's key with the event id (ProcessedEvent.handler), effect-once types
    guarantee: Guarantee
    schema_versions: frozenset[int]
    why: str  # the reason for the guarantee, for the next person who adds a type
    # Dotted path of `hook(event: OutboxEvent) -> None`, run inside the transaction that
    # records the event (e.g. to create the pending notification it will produce).
    record_hook: str = ""
    # An effect-once handler that reads the inbox itself, in its own locked read (one round
    # trip fewer on the hot path); the dispatcher then leaves the check to it.
    inbox_checked_by_handler: bool = False
    # Handles many deliveries at once (a list of (envelope, delivery) in, a result or the
    # exception for each out); the worker then batches this type's messages.
    batch_handler: str = ""
    # Dotted path of `() -> int`: the most deliveries one batch of this type may hold, when
    # fewer than DELIVERY_BATCH_SIZE (e.g. as many as its calls can go out at once).
    batch_size: str = ""
    # How long a transient failure is retried, counted in time from the first failure (not in
    # attempts: an outage of hours must not use up a count meant for minutes), and the longest
    # pause between two tries. Settings DELIVERY_RETRY_BUDGET_SECONDS and
    # DELIVERY_RETRY_MAX_DELAY_SECONDS override them for every type (drills, tests).
    retry_budget: timedelta = timedelta(hours=1)
    retry_max_delay: timedelta = timedelta(minutes=5)

    @property
    def aggregate_id_field(self) -> str:
        return f"{self.aggregate}_id"

    @property
    def current_schema_version(self) -> int:
        return max(self.schema_versions)

    def handler_function(self) -> Callable[..., str]:
        return _resolve(self.handler)

    def batch_handler_function(self) -> Callable[..., list[Any]] | None:
        return _resolve(self.batch_handler) if self.batch_handler else None

    def batch_size_limit(self) -> int | None:
        return int(_resolve(self.batch_size)()) if self.batch_size else None

    def record_hook_function(self) -> Callable[..., None] | None:
        return _resolve(self.record_hook) if self.record_hook else None


@cache
def _resolve(path: str) -> Callable[..., Any]:
    # On first use, not when the catalogue is read: catalogues load with the settings,
    # before Django's apps (and the handlers' models) are ready.
    return import_string(path)


def event_types(catalogues: Sequence[str] | None = None) -> dict[str, EventType]:
    """Every registered event type by name (settings.MESSAGING_EVENT_CATALOGUES by default)."""
    # Settings pass their list explicitly: they build the broker topology from it while they
    # are still being read.
    return _load(tuple(settings.MESSAGING_EVENT_CATALOGUES if catalogues is None else catalogues))


@cache
def _load(catalogues: tuple[str, ...]) -> dict[str, EventType]:
    registered: dict[str, EventType] = {}
    for path in catalogues:
        for event_type in import_module(path).EVENT_TYPES:
            if event_type.name in registered:
                raise ValueError(f"Event type {event_type.name!r} is declared twice ({path}).")
            registered[event_type.name] = event_type
    return registered


def event_type_get(name: str) -> EventType:
    try:
        return event_types()[name]
    except KeyError:
        raise UnknownEventType(f"The event type {name!r} is not registered by any catalogue.") from None


def work_queue_names(catalogues: Sequence[str] | None = None) -> list[str]:
    return sorted({event.queue for event in event_types(catalogues).values()})


def event_types_for_queue(queue: str, catalogues: Sequence[str] | None = None) -> list[str]:
    return sorted(event.name for event in event_types(catalogues).values() if event.queue == queue)
