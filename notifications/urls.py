from django.urls import include, path

from notifications.views import dashboard, mail_provider

urlpatterns = [
    path("admin/dashboard/", dashboard, name="dashboard"),
    path("admin/mail-provider/", mail_provider, name="mail_provider"),
    path("", include("notifications.tracking.urls")),
]
