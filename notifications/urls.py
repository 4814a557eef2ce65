from django.urls import include, path

from notifications.views import dashboard

urlpatterns = [
    path("admin/dashboard/", dashboard, name="dashboard"),
    path("", include("notifications.tracking.urls")),
]
