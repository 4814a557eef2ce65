"""HTTP request/response values passed between the socket handler and the endpoint functions.

Endpoints work on these plain values rather than on ``BaseHTTPRequestHandler`` so they can be read
(and replayed byte for byte) without caring about sockets.
"""

import json
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

# The request headers as http.server parses them (case-insensitive ``get``).
Headers = Message


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: Headers
    body: bytes

    def query_value(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    # Set by the accept_then_drop fault: the socket is shut down instead of answering.
    drop_connection: bool = False


def json_bytes(payload: Any) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def json_response(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(status, json_bytes(payload), dict(headers or {}))


def error_response(status: int, name: str, message: str, headers: dict[str, str] | None = None) -> Response:
    # Same shape as Resend's error bodies, so client code parses simulator and provider errors alike.
    return json_response(status, {"statusCode": status, "name": name, "message": message}, headers)


class HttpError(Exception):
    """Raised by control endpoints to answer with an error body without threading it through returns."""

    def __init__(self, status: int, name: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.name = name
        self.message = message
        self.headers = headers

    def to_response(self) -> Response:
        return error_response(self.status, self.name, self.message, self.headers)


def parse_json_object(body: bytes, *, empty_ok: bool = False) -> dict[str, Any]:
    if not body.strip() and empty_ok:
        return {}
    try:
        payload = json.loads(body)
    except ValueError as exc:
        raise HttpError(400, "invalid_json", f"Request body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise HttpError(400, "invalid_json", "Request body must be a JSON object.")
    return payload
