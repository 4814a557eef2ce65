"""The names of the backbone's Celery tasks: on the wire (the task header of every message)
and in the beat schedule, so each is written once, here."""

HANDLE_EVENT = "messaging.handle_event"
# The event task's name before the backbone had an app of its own: messages already queued,
# delayed or dead-lettered under it are still handled after an upgrade.
HANDLE_EVENT_BEFORE_MESSAGING = "notifications.handle_event"
RELAY_OUTBOX_SWEEP = "messaging.relay_outbox_sweep"
RETENTION = "messaging.retention"
