"""The email feature in the admin: the review screen and the records of what people did."""

from notifications.admin import records, review

__all__ = ["records", "review"]
