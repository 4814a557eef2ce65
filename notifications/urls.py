from django.urls import path

from notifications.views import dashboard

urlpatterns = [path("admin/dashboard/", dashboard, name="dashboard")]
