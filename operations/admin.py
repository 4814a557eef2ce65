"""The operators' screens in the admin, registered here (Django imports each app's admin
module): the review screen of the notifications, the reconciliation's reports and
mismatches, and the records of what people did. Their changelists keep the notifications
app's URLs (/admin/notifications/...) and permissions: the models are the email feature's."""

from django.contrib import admin

from operations import records_admin
from operations.reconciliation import admin as reconciliation
from operations.review import admin as review

# The home page leads first to the screens that are no model's: dead letters, dashboard,
# mail provider (operations/urls.py).
admin.site.index_template = "admin/operations/index.html"

__all__ = ["reconciliation", "records_admin", "review"]
