from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

urlpatterns = [
    path("", include("observability.urls")),  # before admin/: /admin/dashboard/ is ours
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/", include("orders.urls")),
    path("", include("infra.urls")),
]
