from django.urls import include, path

from notifications.admin.dead_letters import dead_letters_action, dead_letters_list
from notifications.views import dashboard, mail_provider

urlpatterns = [
    path("admin/dashboard/", dashboard, name="dashboard"),
    path("admin/mail-provider/", mail_provider, name="mail_provider"),
    path("admin/dead-letters/", dead_letters_list, name="dead_letters"),
    path("admin/dead-letters/act/", dead_letters_action, name="dead_letters_action"),
    path("", include("notifications.tracking.urls")),
]
