"""The operators' pages that are no model's, inside the admin's layout and under /admin/
(config/urls.py mounts them before the admin's own URLs)."""

from django.urls import path

from operations.dashboard.views import dashboard
from operations.dead_letters.views import dead_letters_action, dead_letters_list
from operations.mail_provider.views import mail_provider

urlpatterns = [
    path("admin/dashboard/", dashboard, name="dashboard"),
    path("admin/mail-provider/", mail_provider, name="mail_provider"),
    path("admin/dead-letters/", dead_letters_list, name="dead_letters"),
    path("admin/dead-letters/act/", dead_letters_action, name="dead_letters_action"),
]
