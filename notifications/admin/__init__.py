"""The email feature in the admin: the review screen, the records of what people did, and
what the providers reported (with the suppression list)."""

from notifications.admin import records, review, tracking

__all__ = ["records", "review", "tracking"]
