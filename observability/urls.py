from django.urls import path

from observability.views import dashboard, metrics

urlpatterns = [
    path("metrics", metrics, name="metrics"),
    path("admin/dashboard/", dashboard, name="dashboard"),
]
