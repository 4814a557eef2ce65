from django.contrib import admin
from django.urls import include, path

from api.schema_view import ApiSchemaView

urlpatterns = [
    path("", include("operations.urls")),  # before admin/: /admin/dashboard/ is ours
    path("", include("notifications.urls")),
    path("", include("intake.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", ApiSchemaView.as_view(), name="schema"),
    path("api/", include("api.urls")),
    path("", include("observability.urls")),
    path("", include("infra.urls")),
]

# JSON under /api/, Django's HTML pages elsewhere (api/errors.py).
handler400 = "api.errors.bad_request"
handler404 = "api.errors.not_found"
handler500 = "api.errors.server_error"
