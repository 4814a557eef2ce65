"""The webhooks of an accepted message, planned when it is accepted; the settings; the sender thread.

Planning decides everything up front: which events (by the wire and the fault rule that matched
the send), their payloads, when each is due, whether the message's events are reordered, and
which are posted twice. The deliveries are stored with the message, in the same transaction, so
nothing about them depends on the thread that later posts them.
"""

import random
import threading
import time
from collections.abc import Callable

from tools.mailsim.faults import DELIVERY_KINDS, FaultRule
from tools.mailsim.records import Delivery, Message
from tools.mailsim.store import Store
from tools.mailsim.webhooks import brevo, postmark, resend
from tools.mailsim.webhooks.events import EventTime, OutcomeFor, WebhookEvent
from tools.mailsim.webhooks.queue import DeliveryQueue
from tools.mailsim.webhooks.sender import WebhookSender
from tools.mailsim.webhooks.settings import WebhookSettings

PROVIDERS: dict[str, Callable[[Message, OutcomeFor, EventTime], list[WebhookEvent]]] = {
    "resend": resend.events,
    "brevo": brevo.events,
    "postmark": postmark.events,
}


class WebhookDispatcher:
    def __init__(self, store: Store, startup: WebhookSettings):
        self.queue = DeliveryQueue(store)
        # Set when deliveries are stored, so the sender posts an event due now without polling.
        self.wake = threading.Event()
        self._startup = startup
        self._settings = startup
        self._random = random.Random(startup.seed)
        self._lock = threading.Lock()
        self._sender: WebhookSender | None = None

    @property
    def settings(self) -> WebhookSettings:
        with self._lock:
            return self._settings

    def update(self, payload: object) -> WebhookSettings:
        """Apply a ``POST /_sim/webhooks`` body; WebhookSettingsError leaves everything unchanged."""
        with self._lock:
            self._settings = self._settings.updated(payload)
            if isinstance(payload, dict) and "seed" in payload:
                self._random = random.Random(self._settings.seed)
            return self._settings

    def restore_startup_settings(self) -> None:
        with self._lock:
            self._settings = self._startup
            self._random = random.Random(self._startup.seed)

    def plan(self, message: Message, rule: FaultRule | None) -> list[Delivery]:
        """The deliveries of ``message``'s events; none when its wire has no webhook URL."""
        kind = rule.kind if rule is not None and rule.kind in DELIVERY_KINDS else None

        def outcome_for(recipient: str) -> str | None:
            return kind if rule is not None and rule.applies_to(recipient) else None

        with self._lock:
            settings = self._settings
            url = settings.urls.get(message.wire)
            if url is None:
                return []
            delay = settings.delivery_delay_seconds
            events = PROVIDERS[message.wire](
                message, outcome_for, lambda step: message.accepted_at + step * delay
            )
            return _schedule(events, message, url, settings, self._random, time.time())

    def notify(self) -> None:
        self.wake.set()

    def start(self) -> None:
        self._sender = WebhookSender(self)
        self._sender.start()

    def stop(self) -> None:
        if self._sender is not None:
            self._sender.stop()


def _schedule(
    events: list[WebhookEvent],
    message: Message,
    url: str,
    settings: WebhookSettings,
    draws: random.Random,
    now: float,
) -> list[Delivery]:
    # Events sorted by step (stable: recipients keep their order), then due after their step's
    # delay; reordering hands the due times out backwards, so the last event is posted first.
    events = sorted(events, key=lambda event: event.step)
    offsets = [event.step * settings.delivery_delay_seconds for event in events]
    if settings.reorder:
        offsets.reverse()
    order = sorted(range(len(events)), key=lambda i: (offsets[i], -i if settings.reorder else i))
    deliveries = []
    for index in order:
        event = events[index]
        delivery = Delivery(
            event.event_id, message.wire, event.event_type, message.id, url, event.body, now + offsets[index]
        )
        deliveries.append(delivery)
        if draws.random() < settings.duplicate_rate:
            # The same event again (same id, same body), posted right after the first copy.
            deliveries.append(delivery)
    return deliveries
