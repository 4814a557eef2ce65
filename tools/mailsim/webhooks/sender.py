"""The background thread that posts due webhook deliveries, one at a time in due order.

A 2xx answer delivers; any other status or a connection error is retried after
``retry_base_seconds * 2**n`` (capped at 30 s) until ``max_attempts``, then given up. Posting has
a short timeout and runs on its own thread, so a slow receiver never holds up the simulator's
request handling. Signatures and credentials are taken from the settings at posting time, and
the Svix timestamp is the wall clock's: receivers reject stale timestamps, whatever the
simulator clock says.
"""

import logging
import threading
import time
import urllib.error
import urllib.request
from http.client import HTTPException
from typing import TYPE_CHECKING

from tools.mailsim.records import Delivery
from tools.mailsim.webhooks.settings import WebhookSettings
from tools.mailsim.webhooks.signing import basic_auth_headers, svix_headers

if TYPE_CHECKING:
    from tools.mailsim.webhooks.dispatcher import WebhookDispatcher

logger = logging.getLogger("mailsim.webhooks")

POST_TIMEOUT_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 30.0
# The longest the thread sleeps without looking at the queue (a reset, a restart's leftovers).
IDLE_WAIT_SECONDS = 1.0
# Environment proxies are ignored: the receivers are the developer's own endpoints.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class WebhookSender(threading.Thread):
    def __init__(self, dispatcher: "WebhookDispatcher"):
        super().__init__(name="mailsim-webhooks", daemon=True)
        self._dispatcher = dispatcher
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        self._dispatcher.wake.set()
        self.join(timeout=POST_TIMEOUT_SECONDS + 1)

    def run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._post_due()
            except Exception:
                # The loop must outlive one bad round (a locked database, a closed store at exit).
                logger.exception("webhook sender round failed")
                self._stopping.wait(IDLE_WAIT_SECONDS)

    def _post_due(self) -> None:
        queue = self._dispatcher.queue
        # Cleared before looking, so a delivery stored after the look still wakes the wait below;
        # stop() sets the flag before the event, so a stop that this clear swallowed is seen here.
        self._dispatcher.wake.clear()
        if self._stopping.is_set():
            return
        due = queue.due(time.time())
        for delivery in due:
            if self._stopping.is_set():
                return
            self._attempt(delivery)
        if not due:
            next_due = queue.next_due_at()
            wait = IDLE_WAIT_SECONDS if next_due is None else next_due - time.time()
            self._dispatcher.wake.wait(min(max(wait, 0.0), IDLE_WAIT_SECONDS))

    def _attempt(self, delivery: Delivery) -> None:
        settings = self._dispatcher.settings
        status, error = post(delivery, _auth_headers(delivery, settings))
        queue = self._dispatcher.queue
        assert delivery.seq is not None  # read from the table, where seq is always set
        if status is not None and 200 <= status < 300:
            queue.record_delivered(delivery.seq, status, time.time())
            return
        attempts = delivery.attempts + 1
        retry_at = None
        if attempts < settings.max_attempts:
            backoff = min(settings.retry_base_seconds * 2 ** (attempts - 1), MAX_BACKOFF_SECONDS)
            retry_at = time.time() + backoff
        queue.record_failed(delivery.seq, status, error, retry_at)
        logger.info(
            "webhook attempt failed",
            extra={"event_id": delivery.event_id, "status": status, "error": error, "attempts": attempts},
        )


def post(delivery: Delivery, headers: dict[str, str]) -> tuple[int | None, str | None]:
    """POST the delivery's body; (HTTP status, None) or (None, the connection error)."""
    request = urllib.request.Request(
        delivery.url,
        data=delivery.body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "mailsim-webhooks/1.0", **headers},
    )
    try:
        with OPENER.open(request, timeout=POST_TIMEOUT_SECONDS) as response:
            return response.status, None
    except urllib.error.HTTPError as exc:
        exc.close()
        return exc.code, None
    except (urllib.error.URLError, OSError, HTTPException) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def _auth_headers(delivery: Delivery, settings: WebhookSettings) -> dict[str, str]:
    if delivery.wire == "resend":
        if settings.resend_secret is None:
            return {"svix-id": delivery.event_id}
        return svix_headers(settings.resend_secret, delivery.event_id, delivery.body, int(time.time()))
    return basic_auth_headers(settings.basic_auth) if settings.basic_auth else {}
