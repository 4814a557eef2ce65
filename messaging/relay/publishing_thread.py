"""The sweep's broker side, in a thread of its own, so PostgreSQL and the broker work at once.

While this thread writes a batch and waits for its confirms, the caller's thread claims the
next batch and marks the one before (relay_outbox_sweep in messaging/relay/relay.py). The
thread has its own publisher and connection (process_publisher is per thread) and never
touches the database: the claims and marks stay on the caller's connection.
"""

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import PublishReport, process_publisher


class PublishingThread:
    def __init__(self) -> None:
        self.pid = os.getpid()
        # One thread: batches go out in the order they were claimed, and one publisher's
        # confirm-mode channel is never shared between threads.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relay-publish")

    def submit(self, messages: Sequence[OutgoingMessage]) -> "Future[PublishReport]":
        """Publish in the thread; the future's result is the batch's report, or PublishError."""
        return self._executor.submit(_publish, messages)


def _publish(messages: Sequence[OutgoingMessage]) -> PublishReport:
    return process_publisher().publish(messages)


_local = threading.local()


def publishing_thread() -> PublishingThread:
    """The publishing thread of the calling thread, created on first use. A forked child
    (a Celery pool process) inherits the object but not the thread: it makes its own."""
    thread: PublishingThread | None = getattr(_local, "publishing_thread", None)
    if thread is None or thread.pid != os.getpid():
        thread = _local.publishing_thread = PublishingThread()
    return thread
