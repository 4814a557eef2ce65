"""gunicorn settings (bin/web passes -c config/gunicorn.py)."""

import logging
import os
from typing import Any

from django.conf import settings

from observability.logs import EmailMaskingFilter

# The master reads the Django settings the workers load (config/wsgi.py), once at start, so that
# settings it cannot load stop it there rather than when a worker exits; it sets up no more of
# Django than that.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
_METRICS_DIR = settings.PROMETHEUS_MULTIPROC_DIR

# gunicorn's own access and error logs do not go through Django's LOGGING; a query string
# (the admin's search by customer address, say) would put an address in them. Filters on the
# loggers stay when gunicorn replaces their handlers.
for _name in ("gunicorn.access", "gunicorn.error"):
    logging.getLogger(_name).addFilter(EmailMaskingFilter())


def child_exit(server: Any, worker: Any) -> None:  # gunicorn's Arbiter and Worker (untyped)
    # A dead worker's live gauges must not be added up any more (prometheus_client multiprocess).
    if _METRICS_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, path=_METRICS_DIR)
