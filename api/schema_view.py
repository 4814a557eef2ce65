"""GET /api/schema/: the API's OpenAPI schema, built once per process.

It may be public: it documents the surface every client sees (routes, fields, error bodies)
and holds nothing of any client, order or setting; clients' code generators and the fuzzing
(tests/integration/api/test_api_fuzz.py) read it without a token. Generating it takes about a
second of CPU, so a public route that generated it for every request (drf-spectacular's
SpectacularAPIView does, and again for each `?lang=` or `?version=`) would let anyone keep the
web busy: it is generated at the first request and kept, and each request only renders it
(JSON or YAML by the Accept header, with drf-spectacular's own renderers)."""

import functools
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


@functools.cache
def api_schema() -> dict[str, Any]:
    """The schema as drf-spectacular's view serves it by default (public: every route)."""
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


class ApiSchemaView(APIView):
    renderer_classes = SpectacularAPIView.renderer_classes
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []  # counted per token: there is none here

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response(api_schema())
