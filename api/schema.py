"""What the OpenAPI schema says about errors: every error answer the API really gives is
documented with its body, so clients (and the fuzzer, tests/integration/api/test_api_fuzz.py)
can rely on it."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ApiErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="A stable machine-readable code, e.g. invalid_request.")
    message = serializers.CharField(help_text="What went wrong, in a sentence for people.")
    # The error body's key is `fields`. DRF's metaclass takes declared fields off the class, so
    # this never shadows Serializer.fields; the stubs cannot express that.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For invalid_request: the problems of each field.",
    )


_ERRORS = {
    400: "The body is not JSON or has invalid fields (`fields` says which and why).",
    401: "The bearer token is missing, unknown or revoked.",
    404: "No order has this id.",
    406: "The client does not accept JSON, the only format the API answers in.",
    409: "The change does not fit the order's current state or version, or the shop's order number "
    "belongs to an order with other content; nothing changed.",
    411: "A chunked body: send it with a Content-Length header.",
    413: "The body is larger than the API accepts.",
    415: "The body is not application/json.",
    422: "The Idempotency-Key was used before for a different order.",
    429: "Too many requests for this token; the Retry-After header says in how many seconds to retry.",
}
# Answers any operation can give, before its own logic runs.
_EVERY_OPERATION = (401, 406, 429)
_WITH_A_BODY = (400, 411, 413, 415)


def error_responses(
    *, with_body: bool, also: tuple[int, ...] = (), meaning: dict[int, str] | None = None
) -> dict[int, OpenApiResponse]:
    """`meaning`: what a code means for this operation, where not what it means for an order's."""
    codes = sorted({*_EVERY_OPERATION, *(_WITH_A_BODY if with_body else ()), *also, *(meaning or {})})
    said = {**_ERRORS, **(meaning or {})}
    return {code: OpenApiResponse(ApiErrorSerializer, description=said[code]) for code in codes}
