"""A TCP proxy between a process and PostgreSQL or RabbitMQ, to make the network fail on
purpose: hold back what the server sends (confirms that do not come), or cut it off
altogether (the server is unreachable) and bring it back on the same port."""

import contextlib
import socket
import threading


class TcpProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._downstream_open = threading.Event()
        self._downstream_open.set()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def hold_replies(self) -> None:
        """Stop passing the server's bytes to the client (they wait, nothing is lost)."""
        self._downstream_open.clear()

    def release_replies(self) -> None:
        self._downstream_open.set()

    def cut(self) -> None:
        """Drop every connection and refuse new ones, as if the server were down."""
        self.close()
        self._sockets = []

    def restore(self) -> None:
        """Listen again on the same port."""
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._downstream_open.set()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, None), daemon=True).start()
            threading.Thread(
                target=self._pump, args=(server, client, self._downstream_open), daemon=True
            ).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, gate: threading.Event | None) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if gate is not None:
                    gate.wait()  # hold what arrived until released
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
