"""The email feature in the admin: the review screen, the reconciliation, the records of
what people did, what the providers reported (with the suppression list), and the emails'
wording."""

from django.contrib import admin

from notifications.admin import email_templates, records, review, tracking

# The home page leads to the screens that are no model's: dead letters, dashboard, mail provider.
admin.site.index_template = "admin/notifications/index.html"

__all__ = ["email_templates", "records", "review", "tracking"]
