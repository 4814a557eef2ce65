from django.urls import path

from observability.views import deployment_metrics, metrics

urlpatterns = [
    path("metrics", metrics, name="metrics"),
    path("metrics/deployment", deployment_metrics, name="deployment_metrics"),
]
