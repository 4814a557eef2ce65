"""metrics_server: serve this host's /metrics where no web process runs beside the workers
(a Kubernetes worker or relay pod: a sidecar sharing the pod's PROMETHEUS_MULTIPROC_DIR)."""

import contextlib
import os
import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from prometheus_client import start_http_server

from observability.exposition import host_registry


class Command(BaseCommand):
    help = (
        "Serve /metrics of the processes sharing PROMETHEUS_MULTIPROC_DIR (for pods without a web process)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=9100, help="port to listen on (default 9100)")
        parser.add_argument("--bind", default="0.0.0.0", help="address to listen on (default all)")

    def handle(self, *args: Any, port: int, bind: str, **options: Any) -> None:
        directory = settings.PROMETHEUS_MULTIPROC_DIR
        if not directory:
            raise CommandError(
                "PROMETHEUS_MULTIPROC_DIR is not set: there are no other processes' counts to serve."
            )
        os.makedirs(directory, exist_ok=True)
        try:
            server, thread = start_http_server(port, addr=bind, registry=host_registry())
        except OSError as exc:
            raise CommandError(f"Cannot listen on {bind}:{port}: {exc}") from exc
        self.stdout.write(f"metrics of {directory} on http://{bind}:{port}/metrics", ending="\n")
        self.stdout.flush()
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C in a terminal
            stop.wait()
        server.shutdown()
        thread.join(timeout=5)
