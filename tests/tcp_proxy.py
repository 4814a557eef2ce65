"""A TCP proxy that can hold back what the server sends: a network that loses (delays)
the broker's publisher confirms while the messages themselves get through."""

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

    def close(self) -> None:
        self._downstream_open.set()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
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
