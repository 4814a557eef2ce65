"""Every API error is a JSON object with a machine code and a sentence for people.

DRF's exceptions pass through `api_exception_handler`; what Django answers itself (no URL
matched, an unhandled exception, a refused host) goes through the handler views below, which
answer JSON under /api/ and leave the admin its HTML pages.

While no primary database can be reached (a failover, a restart), every page answers 503 with
Retry-After instead of 500: the request did nothing wrong, and the same request a few seconds
later is answered as usual (each process's next connection finds the new primary). A view's
error is caught by `DatabaseUnavailableMiddleware` (no traceback logged for it); one raised
elsewhere (a middleware saving a session) by `server_error`.
"""

import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from infra.database_errors import database_unavailable

logger = logging.getLogger(__name__)
API_PREFIX = "/api/"
# A failover takes seconds; a client back sooner only gets another 503, which costs nothing.
DATABASE_RETRY_AFTER_SECONDS = 2


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's handler logs it and answers 500
    if isinstance(exc, exceptions.ValidationError):
        data = response.data if isinstance(response.data, dict) else {"non_field_errors": response.data}
        fields = dict(_field_problems(data))
        response.data = {
            "error": "invalid_request",
            "message": "The request has invalid fields: " + ", ".join(sorted(fields)) + ".",
            "fields": fields,
        }
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        code = getattr(detail, "code", None) or getattr(exc, "default_code", None)
        response.data = {"error": code, "message": str(detail)}
    return response


def _field_problems(errors: Any, path: str = "") -> Iterator[tuple[str, list[str]]]:
    """Each field's problems under its path in the body (`lines[2].sku`,
    `shipping_address.country`): a nested part's errors come as dicts of lists, or lists of
    them, and a client reads one flat map."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if isinstance(key, int):
                yield from _field_problems(value, f"{path}[{key}]")
            else:
                yield from _field_problems(value, f"{path}.{key}" if path else str(key))
    elif isinstance(errors, list) and errors and all(isinstance(item, str) for item in errors):
        yield path, [str(item) for item in errors]
    elif isinstance(errors, list):
        for index, item in enumerate(errors):
            if item:  # a list part without problems is an empty dict
                yield from _field_problems(item, f"{path}[{index}]")
    else:
        yield path, [str(errors)]


def api_error_response(*, status: int, error: str, message: str) -> JsonResponse:
    return JsonResponse({"error": error, "message": message}, status=status)


def is_api_path(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_path(request):
        return defaults.page_not_found(request, exception)
    # request.path is the client's own input: it is returned as JSON data, never as HTML.
    return api_error_response(
        status=404, error="not_found", message=f"There is no API endpoint at {request.path}."
    )


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_path(request):
        return defaults.bad_request(request, exception)
    return api_error_response(status=400, error="bad_request", message="The request could not be understood.")


def server_error(request: HttpRequest) -> HttpResponse:
    """Django has logged the exception with its traceback already; the client gets no detail."""
    if database_unavailable(sys.exc_info()[1]):  # Django calls this while handling the exception
        return database_unavailable_response(request)
    if not is_api_path(request):
        return defaults.server_error(request)
    return api_error_response(
        status=500,
        error="server_error",
        message="An unexpected error happened on our side and has been logged. Retry later: a POST "
        "retried with the same Idempotency-Key cannot create a second order.",
    )


def database_unavailable_response(request: HttpRequest) -> HttpResponse:
    message = (
        "The service cannot reach its database right now (a failover takes seconds). Retry in "
        f"{DATABASE_RETRY_AFTER_SECONDS} seconds: a POST retried with the same Idempotency-Key "
        "cannot create a second order."
    )
    response: HttpResponse
    if is_api_path(request):
        response = api_error_response(status=503, error="database_unavailable", message=message)
    else:
        response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """A view's database error that means "no primary right now" becomes a 503 (module doc)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_unavailable(exception):
            return None
        logger.warning("no database to talk to, answered 503: %s: %s", type(exception).__name__, exception)
        return database_unavailable_response(request)
