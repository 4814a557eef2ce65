"""The email feature in the admin: the review screen, the reconciliation, the records of
what people did, what the providers reported (with the suppression list), and the emails'
wording."""

from notifications.admin import email_templates, reconciliation, records, review, tracking

__all__ = ["email_templates", "reconciliation", "records", "review", "tracking"]
