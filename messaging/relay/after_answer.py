"""A web request's committed events, published together once its answer has gone out.

Inside a request, the on-commit hook of each event (messaging/outbox.py) does not publish at
once: it adds the event to the request's batch, and when the request is finished (Django's
`request_finished`, sent as the server closes the response after writing its last byte) the
batch goes out in one publish, one wait for its confirms and one mark. A platform's delivery
records two events; before, each had its own publish, confirm wait and mark before the
answer, a fifth of the answer's time. The client's answer says what committed, which does
not depend on the publish: the events are in the outbox either way.

It relies on the server closing each response, as WSGI requires of it (gunicorn does, and
Django's test client; Django's own database connection handling relies on it too): a server
that never closes one leaves the thread's batch open until its next request starts.

What this changes for a crash: a process that dies after its answer and before the publish
leaves the events claimed by it, and the sweep publishes them when the claim runs out, as it
always did for a process dying after the commit. Outside a request (workers, commands, the
shell) nothing is deferred: the hook publishes at once.
"""

import threading
from typing import Any

from messaging.models import OutboxEvent
from messaging.relay.relay import relay_publish_committed

_local = threading.local()


def committed_events_publish(events: list[OutboxEvent]) -> None:
    """The on-commit hook's step: into the request's batch, or, outside a request, out now."""
    batch: list[OutboxEvent] | None = getattr(_local, "batch", None)
    if batch is None:
        relay_publish_committed(events=events)
    else:
        batch.extend(events)


def request_batch_open(**_signal: Any) -> None:
    """At a request's start (`request_started`). Whatever an earlier request left (its server
    never closed the response) goes out first."""
    request_batch_publish()
    _local.batch = []


def request_batch_publish(**_signal: Any) -> None:
    """At a request's end (`request_finished`): the batch in one publish. Never raises: the
    events are committed, and what is not published here the sweep publishes."""
    batch: list[OutboxEvent] | None = getattr(_local, "batch", None)
    _local.batch = None
    if batch:
        relay_publish_committed(events=batch)
