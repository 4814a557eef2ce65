"""The email feature in the admin: what the providers reported (with the suppression list),
the emails' wording, and the invoices and credit notes with their PDFs. The operators' screens
over its records (the review screen, the reconciliation, what people did) are the operations
app's, which registers them itself."""

from notifications.admin import documents, email_templates, tracking

__all__ = ["documents", "email_templates", "tracking"]
