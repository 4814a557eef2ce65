"""A Celery pool child that exits leaves metric files behind; its live gauges must go."""

import os

from celery import signals
from django.conf import settings


@signals.worker_process_shutdown.connect
def forget_the_metrics_of_an_exiting_child(pid: int | None = None, **kwargs: object) -> None:
    if settings.PROMETHEUS_MULTIPROC_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid(), path=settings.PROMETHEUS_MULTIPROC_DIR)
