"""The email feature in the admin: what the providers reported (with the suppression list)
and the emails' wording. The operators' screens over its records (the review screen, the
reconciliation, what people did) are the operations app's, which registers them itself."""

from notifications.admin import email_templates, tracking

__all__ = ["email_templates", "tracking"]
