"""HTTP plumbing: routing table, the keep-alive request handler and the threaded server.

The ``/_sim/`` routes are unauthenticated (dev/test only): never expose this server publicly.
"""

import contextlib
import logging
import re
import socket
import socketserver
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import cast
from urllib.parse import parse_qs, urlsplit

from tools.mailsim import control
from tools.mailsim.sending import handle_send
from tools.mailsim.simulator import Simulator
from tools.mailsim.wire import HttpError, Request, Response, error_response
from tools.mailsim.wires.base import Wire
from tools.mailsim.wires.brevo import BrevoWire
from tools.mailsim.wires.postmark import PostmarkWire
from tools.mailsim.wires.resend import ResendWire

logger = logging.getLogger(__name__)

Endpoint = Callable[[Simulator, Request], Response]


def _sender(wire: Wire) -> Endpoint:
    def send(sim: Simulator, request: Request) -> Response:
        return handle_send(sim, request, wire)

    return send


ROUTES: dict[str, dict[str, Endpoint]] = {
    "/emails": {"POST": _sender(ResendWire())},
    "/v3/smtp/email": {"POST": _sender(BrevoWire())},
    "/email": {"POST": _sender(PostmarkWire())},
    "/_sim/health": {"GET": control.health},
    "/_sim/messages": {"GET": control.list_messages},
    "/_sim/requests": {"GET": control.list_requests},
    "/_sim/idempotency": {"GET": control.list_idempotency_records},
    "/_sim/reset": {"POST": control.reset},
    "/_sim/clock": {"GET": control.show_clock, "POST": control.advance_clock},
    "/_sim/faults": {
        "GET": control.show_faults,
        "POST": control.replace_faults,
        "DELETE": control.clear_faults,
    },
    "/_sim/webhooks": {"GET": control.show_webhooks, "POST": control.update_webhooks},
}

# Above the largest email a simulated provider takes (Resend: 40 MB, attachments in base64).
MAX_BODY_BYTES = 48 * 1024 * 1024
ATTACHMENT_PATH = re.compile(r"/_sim/messages/([^/]+)/attachments/(\d+)")
# Idle keep-alive connections are closed after this long so their threads do not pile up.
IDLE_TIMEOUT_SECONDS = 120


def route(sim: Simulator, request: Request) -> Response:
    path = request.path.rstrip("/") or "/"
    attachment = ATTACHMENT_PATH.fullmatch(path)
    if attachment is not None and request.method in ("GET", "HEAD"):
        try:
            return control.attachment_content(sim, request, attachment[1], int(attachment[2]))
        except HttpError as exc:
            return exc.to_response()
    methods = ROUTES.get(path)
    if methods is None:
        return error_response(404, "not_found", f"No route for {request.path}.")
    endpoint = methods.get(request.method)
    if endpoint is None:
        allowed = ", ".join(sorted(methods))
        message = f"{request.method} is not allowed on {path}; use {allowed}."
        return error_response(405, "method_not_allowed", message, {"Allow": allowed})
    try:
        return endpoint(sim, request)
    except HttpError as exc:
        return exc.to_response()


class RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm on, each answer on a
    # kept-alive connection waited ~40 ms for the client's delayed ACK (23 requests/s).
    disable_nagle_algorithm = True
    server_version = "tools/mailsim/1.0"
    timeout = IDLE_TIMEOUT_SECONDS
    server: "SimulatorServer"

    def _dispatch(self) -> None:
        request = self._read_request()
        response = request if isinstance(request, Response) else self._respond_to(request)
        try:
            self._send(response)
        except OSError:
            # The client gave up (e.g. its read timeout fired during a stall); nothing left to tell it.
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch

    def _respond_to(self, request: Request) -> Response:
        try:
            return route(self.server.simulator, request)
        except Exception:
            logger.exception("unhandled error for %s %s", request.method, request.path)
            return error_response(500, "internal_server_error", "The simulator failed; see its stderr.")

    def _read_request(self) -> Request | Response:
        if self.headers.get("Transfer-Encoding"):
            # Without a length the body cannot be skipped, so the connection cannot be reused.
            self.close_connection = True
            return error_response(
                411, "length_required", "Send a Content-Length; chunked bodies are unsupported."
            )
        raw_length = self.headers.get("Content-Length") or "0"
        if not raw_length.isdigit():
            self.close_connection = True
            return error_response(400, "invalid_content_length", "Content-Length must be a byte count.")
        length = int(raw_length)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            return error_response(413, "payload_too_large", f"Body must be 0 to {MAX_BODY_BYTES} bytes.")
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            self.close_connection = True
            return error_response(
                400, "incomplete_body", "The connection closed before the body was complete."
            )
        url = urlsplit(self.path)
        return Request(self.command, url.path, parse_qs(url.query), self.headers, body)

    def _send(self, response: Response) -> None:
        if response.drop_connection:
            self._drop()
            return
        self.send_response(response.status)
        headers = {"Content-Type": "application/json", **response.headers}
        headers["Content-Length"] = str(len(response.body))
        if self.close_connection:
            headers["Connection"] = "close"
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        self.log_message('"%s" dropped without a response (accept_then_drop)', self.requestline)


class SimulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    # A worker's batch opens up to DELIVERY_BATCH_SIZE connections at once. socketserver's
    # default listen queue of 5 overflowed under that: the kernel dropped handshakes, so some
    # calls waited a second for a SYN retry and one was reset after its request had gone (an
    # unknown outcome no real provider would cause). A real provider's queue is not five long.
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], simulator: Simulator):
        self.simulator = simulator
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, RequestHandler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, which can stall start-up on hosts without DNS.
        socketserver.TCPServer.server_bind(self)
        host, self.server_port = self.server_address[:2]
        self.server_name = cast(str, host)  # an AF_INET(6) socket's name: always text

    @property
    def url(self) -> str:
        host = f"[{self.server_name}]" if ":" in self.server_name else self.server_name
        return f"http://{host}:{self.server_port}"
