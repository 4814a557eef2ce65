"""The bench's HTTP load (tools/bench/http_load.py) against a small HTTP server of the test's
own: each request sent as made, at its time, and its answer read whole, or said missing."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tools.bench.http_load import posts_at_rate, request_bytes
from tools.drill.processes import free_port


class _Echo(BaseHTTPRequestHandler):
    """Answers each POST with its path, a header and the body's length; /slow after 2 s."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/slow":
            threading.Event().wait(2)
        answer = json.dumps({"path": self.path, "sig": self.headers["X-Sig"], "bytes": len(body)}).encode()
        self.send_response(201)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_each_request_is_sent_as_made_at_its_rate_and_its_answer_read_whole(server):
    requests = [
        request_bytes("127.0.0.1", server, f"/hook/{n}", b"x" * n, {"X-Sig": f"s{n}"}) for n in range(20)
    ]
    # when: 20 requests at 40 a second
    answers = posts_at_rate("127.0.0.1", server, requests, rate=40, timeout=5)
    # then: each answered, in order, with what it sent
    assert [a.status for a in answers] == [201] * 20
    assert [json.loads(a.body) for a in answers] == [
        {"path": f"/hook/{n}", "sig": f"s{n}", "bytes": n} for n in range(20)
    ]
    # on the schedule: the last went out 19/40 s after the first (not all at once, not late)
    spread = answers[-1].sent_at - answers[0].sent_at
    assert 0.45 <= spread < 0.75, spread
    assert all(a.ms > 0 for a in answers)


def test_a_request_without_an_answer_is_said_so_and_does_not_hold_back_the_others(server):
    closed_port = free_port()  # nothing listens there
    requests = [
        request_bytes("127.0.0.1", server, "/slow", b"{}", {"X-Sig": "a"}),
        request_bytes("127.0.0.1", server, "/fast", b"{}", {"X-Sig": "b"}),
    ]
    answers = posts_at_rate("127.0.0.1", server, requests, rate=20, timeout=1)
    refused = posts_at_rate("127.0.0.1", closed_port, requests[:1], rate=20, timeout=1)
    # then: the slow one timed out after its 1 s (the server would have answered after 2 s)
    assert answers[0].status == 0
    assert answers[0].body.startswith(b"no answer")
    assert answers[0].ms >= 900
    # and the one after it was answered while the slow one still waited
    assert answers[1].status == 201
    assert answers[1].sent_at + answers[1].ms / 1000 < answers[0].sent_at + answers[0].ms / 1000
    assert refused[0].status == 0
    assert b"no answer" in refused[0].body
