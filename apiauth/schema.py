"""The bearer token in the OpenAPI schema (drf-spectacular finds it by the class it documents)."""

from typing import TYPE_CHECKING, Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

if TYPE_CHECKING:  # drf_spectacular.openapi loads rest_framework.views, which loads our throttle
    from drf_spectacular.openapi import AutoSchema


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apiauth.authentication.BearerTokenAuthentication"
    name = "BearerToken"

    def get_security_definition(self, auto_schema: "AutoSchema") -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from `manage.py create_api_token <name>`.",
        }
