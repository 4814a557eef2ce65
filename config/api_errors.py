"""Every API error is a JSON object with a machine code and a sentence for people."""

from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def api_exception_handler(exc, context):
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's handler logs it and answers 500
    if isinstance(exc, exceptions.ValidationError):
        fields = response.data if isinstance(response.data, dict) else {"non_field_errors": response.data}
        response.data = {
            "error": "invalid_request",
            "message": "The request has invalid fields: " + ", ".join(sorted(fields)) + ".",
            "fields": fields,
        }
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        response.data = {"error": getattr(detail, "code", None) or exc.default_code, "message": str(detail)}
    return response
