"""The name of the operators' periodic task, written once, here: the task is registered under
it (operations/tasks.py) and the beat schedule sends it (config/settings/pipeline.py), which
reads it without loading the task's models."""

# From before this app had its own: queued and scheduled messages carry it, so it stays.
RECONCILE = "notifications.reconcile"
