"""The product's URLs plus an API view and a page that fail, to see what a client gets from a bug."""

from django.urls import path
from rest_framework.views import APIView

from config.urls import handler400, handler404, handler500
from config.urls import urlpatterns as product_urlpatterns

__all__ = ["handler400", "handler404", "handler500", "urlpatterns"]


class FailingApi(APIView):
    permission_classes = []

    def get(self, request):
        raise RuntimeError("secret internals: connection string postgres://db.internal/orders")


def failing_page(request):
    raise RuntimeError("a page outside the API failed")


urlpatterns = [
    path("api/test-failure/", FailingApi.as_view()),
    path("test-failure/", failing_page),
    *product_urlpatterns,
]
