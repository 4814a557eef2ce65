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

# JSON under /api/, Django's HTML pages elsewhere (config/api_errors.py).
handler400 = "config.api_errors.bad_request"
handler404 = "config.api_errors.not_found"
handler500 = "config.api_errors.server_error"
