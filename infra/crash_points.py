"""Deterministic crash points for the fault drills (issue-level: docs/drills.md).

The setting FAULT_CRASH_POINT (from the environment) names one point; it is read once, when
this module is imported at start-up, so nothing a request can reach turns it on, and it is inert
when unset. At the named point the process ends at once with os._exit, as a SIGKILL would: no
cleanup, no ack, no rollback handlers. In a Celery pool child the whole worker is killed (its
main process first), so the broker sees the connection drop as it would if the machine died.
"""

import logging
import os
import signal

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)

POINTS = {
    "api.after_commit": "the web process, after the order committed, before the on-commit publish",
    "relay.after_confirm": (
        "the relay, after the broker confirmed a batch, before published_at is written "
        "(in a sweep, the next batch is claimed by then and not yet sent)"
    ),
    "worker.after_provider_accept": "the worker, after the provider accepted, before the result is committed",
    "worker.after_commit": "the worker, after the result is committed, before the message is acked",
    "worker.batch_after_claim": "the worker, after a batch's claims committed, before any provider call",
    "worker.batch_after_one_accept": "the worker, after the provider accepted one email of a batch, "
    "while the batch's other calls may still be in flight",
    "worker.batch_after_sends": "the worker, after every call of a batch was answered, before any outcome "
    "is committed",
    "worker.batch_after_commit": "the worker, after a batch's outcomes committed, before any message "
    "is acked",
}
_ARMED = settings.FAULT_CRASH_POINT
if _ARMED and _ARMED not in POINTS:
    raise ImproperlyConfigured(f"FAULT_CRASH_POINT={_ARMED!r} is not one of {sorted(POINTS)}")


def crash_point(name: str) -> None:
    if name != _ARMED:
        return
    logger.critical("crash point %s reached: exiting now (%s)", name, POINTS[name])
    if name.startswith("worker.") and os.getppid() > 1:
        os.kill(os.getppid(), signal.SIGKILL)  # the worker's main process: it holds the message
    os._exit(137)
