import os
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.metrics_core import Metric

from observability.metrics import APP_REGISTRY


class _AppCounts:
    """This process's own counts, when it is not one of several (no multiprocess dir)."""

    def collect(self) -> Iterable[Metric]:
        return APP_REGISTRY.collect()


def metrics(request: HttpRequest) -> HttpResponse:
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)  # every web and worker process of this host
    else:
        registry.register(_AppCounts())
    for path in settings.METRICS_COLLECTORS:  # figures read from the database and the broker now
        registry.register(import_string(path)())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
