"""gunicorn settings (bin/web passes -c config/gunicorn.py)."""

import os


def child_exit(server, worker) -> None:
    # A dead worker's live gauges must not be added up any more (prometheus_client multiprocess).
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
