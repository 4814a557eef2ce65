"""The API reads at most API_MAX_BODY_BYTES of a request body; a larger one is refused unread."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from api.errors import api_error_response, is_api_path


class ApiBodySizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api_path(request):
            refusal = _body_refusal(request)
            if refusal is not None:
                return refusal
        return self.get_response(request)


def _body_refusal(request: HttpRequest) -> JsonResponse | None:
    limit = settings.API_MAX_BODY_BYTES
    if "CONTENT_LENGTH" not in request.META and "HTTP_TRANSFER_ENCODING" in request.META:
        # Django's WSGI request reads exactly Content-Length bytes: a chunked body would be
        # silently seen as empty (and an order as missing all its fields). Say so instead.
        return api_error_response(
            status=411,
            error="length_required",
            message=f"Send the body with a Content-Length header (at most {limit} bytes); "
            "chunked request bodies are not accepted.",
        )
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0  # Django reads no body for an unparseable length either
    if length > limit:
        return api_error_response(
            status=413,
            error="body_too_large",
            message=f"The request body has {length} bytes; the API accepts at most {limit}.",
        )
    return None
