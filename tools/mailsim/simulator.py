"""The simulator's shared state: store, clock, fault rules, webhooks and the settings the endpoints need."""

import hashlib
import os
from dataclasses import dataclass

from tools.mailsim.clock import Clock
from tools.mailsim.faults import FaultBook
from tools.mailsim.store import Store
from tools.mailsim.webhooks.dispatcher import WebhookDispatcher
from tools.mailsim.webhooks.settings import WebhookSettings

DB_FILENAME = "mailsim.sqlite3"
DEFAULT_WINDOW_SECONDS = 24 * 60 * 60
# Brevo remembers an idempotencyKey for 30 minutes (developers.brevo.com, "Idempotency").
DEFAULT_BREVO_WINDOW_SECONDS = 30 * 60


@dataclass
class Simulator:
    store: Store
    clock: Clock
    faults: FaultBook
    webhooks: WebhookDispatcher
    api_key: str
    idempotency_window_seconds: float = DEFAULT_WINDOW_SECONDS
    brevo_idempotency_window_seconds: float = DEFAULT_BREVO_WINDOW_SECONDS

    @classmethod
    def open(
        cls,
        data_dir: str,
        api_key: str,
        idempotency_window_seconds: float,
        brevo_idempotency_window_seconds: float = DEFAULT_BREVO_WINDOW_SECONDS,
        webhook_settings: WebhookSettings | None = None,
    ) -> "Simulator":
        os.makedirs(data_dir, exist_ok=True)
        store = Store(os.path.join(data_dir, DB_FILENAME))
        clock = Clock(store.load_clock_offset())
        webhooks = WebhookDispatcher(store, webhook_settings or WebhookSettings())
        return cls(
            store,
            clock,
            FaultBook(),
            webhooks,
            api_key,
            idempotency_window_seconds,
            brevo_idempotency_window_seconds,
        )

    def key_scope(self, wire: str) -> str:
        """What idempotency records of ``wire`` are keyed by: a hash, so the API key itself is
        never written to disk, and one per wire, so a key string reused across wires is two keys.
        Resend's scope is the bare hash, as before there were other wires."""
        prefix = "" if wire == "resend" else f"{wire}:"
        return hashlib.sha256(f"{prefix}{self.api_key}".encode()).hexdigest()

    def advance_clock(self, seconds: float) -> None:
        self.store.save_clock_offset(self.clock.advance(seconds))

    def reset(self) -> None:
        # The store's reset drops the pending webhook deliveries too.
        self.store.reset()
        self.faults.clear()
        self.clock.reset()
        self.webhooks.restore_startup_settings()

    def close(self) -> None:
        # The sender thread goes first: it must not find the store closed under it.
        self.webhooks.stop()
        self.store.close()
