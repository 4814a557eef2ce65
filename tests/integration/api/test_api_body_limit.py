"""The API refuses a body larger than API_MAX_BODY_BYTES before reading it, as JSON."""

import contextlib
import http.client
import io
import json
import socket
from typing import cast
from urllib.parse import urlsplit

import pytest
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from orders.models import Order

pytestmark = pytest.mark.django_db

VALID_ORDER = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}


def _order_body_of(size: int) -> str:
    """A valid order padded with spaces (insignificant in JSON) to exactly `size` bytes."""
    body = json.dumps(VALID_ORDER)
    return body + " " * (size - len(body))


def test_a_body_over_the_default_64_kib_is_a_json_413_and_creates_nothing(client):
    response = client.generic(
        "POST", "/api/orders/", _order_body_of(64 * 1024 + 1), content_type="application/json"
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "error": "body_too_large",
        "message": "The request body has 65537 bytes; the API accepts at most 65536.",
    }
    assert Order.objects.count() == 0


def test_a_body_of_exactly_the_limit_is_read(client, settings):
    settings.API_MAX_BODY_BYTES = 1000
    response = client.generic("POST", "/api/orders/", _order_body_of(1000), content_type="application/json")
    assert response.status_code == 201, response.content


def test_the_limit_comes_from_the_setting(client, settings):
    settings.API_MAX_BODY_BYTES = 1000
    response = client.generic("POST", "/api/orders/", _order_body_of(1001), content_type="application/json")
    assert response.status_code == 413


def test_the_limit_is_checked_before_authentication():
    # An anonymous client cannot make the server read a large body either.
    response = APIClient().generic(
        "POST", "/api/orders/", _order_body_of(100_000), content_type="application/json"
    )
    assert response.status_code == 413


def _raw_http(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    address = urlsplit(url)
    assert address.port is not None  # the live server's URL names its port
    with socket.create_connection((address.hostname, address.port), timeout=20) as sock:
        # The server may answer and close before it has the whole body: that is the point.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    # its parser, chunked answers included; HTTPResponse only calls makefile() on its socket
    response = http.client.HTTPResponse(cast(socket.socket, _Recorded(answer)))
    response.begin()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()


class _Recorded:
    def __init__(self, data: bytes):
        self.data = data

    def makefile(self, mode):
        return io.BytesIO(self.data)


def _chunked_post(token: str, body: bytes) -> bytes:
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 8192]), body[i : i + 8192]) for i in range(0, len(body), 8192)
    )
    return (
        b"POST /api/orders/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    )


@pytest.mark.django_db(transaction=True)
def test_under_gunicorn_an_oversized_or_chunked_body_is_refused_unread(start_web):
    _, token = api_token_create(name="body limit")
    url = start_web()
    big = _order_body_of(200_000).encode()
    # when: an oversized body announced by Content-Length
    status, headers, body = _raw_http(
        url,
        b"POST /api/orders/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(big) + big,
    )
    # then
    assert (status, headers["content-type"]) == (413, "application/json")
    assert json.loads(body)["error"] == "body_too_large"
    # when: chunked bodies, which Django would read as empty, large and small
    for payload in (big, json.dumps(VALID_ORDER).encode()):
        status, headers, body = _raw_http(url, _chunked_post(token, payload))
        # then
        assert (status, headers["content-type"]) == (411, "application/json")
        assert "Content-Length" in json.loads(body)["message"]
    assert Order.objects.count() == 0
