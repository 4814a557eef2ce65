"""The names of the backbone's Celery tasks, written once, here: the tasks are registered
under them (messaging/tasks.py), the beat schedule sends them (config/settings/pipeline.py),
the relay writes them into every message it publishes, and the tests and the drill build
messages with them."""

HANDLE_EVENT = "messaging.handle_event"
# The event task's name before the backbone had an app of its own: messages already queued,
# delayed or dead-lettered under it are still handled after an upgrade.
HANDLE_EVENT_BEFORE_MESSAGING = "notifications.handle_event"
RELAY_OUTBOX_SWEEP = "messaging.relay_outbox_sweep"
RETENTION = "messaging.retention"
