"""A TCP port on 127.0.0.1 that records every connection made to it and what came first on it,
answering nothing: a test that must cause no request (an invoice template that names the
address) asserts that it recorded none, whatever the protocol."""

import socket
import threading


class ConnectionListener:
    def __init__(self) -> None:
        self.connections: list[bytes] = []
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self._open = True
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def close(self) -> None:
        self._open = False
        self._thread.join(timeout=5)
        self._socket.close()

    def _accept(self) -> None:
        while self._open:
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.connections.append(connection.recv(1024))
                except OSError:
                    self.connections.append(b"")
