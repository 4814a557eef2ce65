"""The root side of a host's link: PostgreSQL, RabbitMQ and the mail simulator listen on
loopback only, so each host reaches them through proxies listening on its root-side address.

PostgreSQL and RabbitMQ go through socat (one process each, a child per connection: their
traffic is the heaviest). The mail simulator goes through a small proxy of our own that also
writes down each provider call the host made, with its Idempotency-Key and the time: a
witness on the wire, apart from the simulator and from the database, of which host called
the provider for which email and when.
"""

import contextlib
import os
import re
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass

IDEMPOTENCY_KEY_HEADER = re.compile(rb"^idempotency-key:[ \t]*(\S+)", re.IGNORECASE | re.MULTILINE)


def wait_until_listening(host: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class SocatForward:
    """listen_host:port -> 127.0.0.1:target_port, a socat child per connection."""

    def __init__(self, listen_host: str, port: int, target_port: int):
        self.listen = (listen_host, port)
        self.target_port = target_port
        self.process: subprocess.Popen | None = None

    def start(self) -> "SocatForward":
        host, port = self.listen
        self.process = subprocess.Popen(
            [
                "socat",
                f"TCP-LISTEN:{port},bind={host},fork,reuseaddr",
                f"TCP:127.0.0.1:{self.target_port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its children in its group: stopped together
        )
        wait_until_listening(host, port)
        if self.process.poll() is not None:  # another listener answered: the port is taken
            raise RuntimeError(f"socat could not listen on {host}:{port}")
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@dataclass(frozen=True)
class ProviderCall:
    at: float  # time.time() when the request's bytes passed the proxy
    idempotency_key: str


class SniffingForward:
    """listen_host:port -> 127.0.0.1:target_port in threads, writing down every request's
    Idempotency-Key as it passes (the requests are small; a header cut by a read boundary
    would go unseen, which the report's own count would show against the simulator's)."""

    def __init__(self, listen_host: str, port: int, target_port: int):
        self.listen = (listen_host, port)
        self.target = ("127.0.0.1", target_port)
        self.calls: list[ProviderCall] = []
        self._sockets: list[socket.socket] = []
        self._listener: socket.socket | None = None

    def start(self) -> "SniffingForward":
        self._listener = socket.create_server(self.listen, reuse_port=False)
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def stop(self) -> None:
        for sock in [self._listener, *self._sockets]:
            if sock is None:
                continue
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, requests: bool) -> None:
        try:
            while data := source.recv(65536):
                if requests:
                    now = time.time()
                    for match in IDEMPOTENCY_KEY_HEADER.finditer(data):
                        self.calls.append(ProviderCall(now, match.group(1).decode(errors="replace")))
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
