"""Two metrics endpoints, so that figures add up across hosts:

- `/metrics`: what this host's processes counted (web, worker and relay processes sharing its
  PROMETHEUS_MULTIPROC_DIR), every series labelled with its `host` (METRICS_HOST). Scrape it
  on every host; a sum over hosts is the deployment's total.
- `/metrics/deployment`: figures read from the database and the broker when scraped (backlog,
  statuses, queue depths): the same whichever host answers, so scrape it once per deployment
  (through the load balancer), never per host.
"""

import os
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from observability.metrics import APP_REGISTRY


class _AppCounts:
    """This process's own counts, when it is not one of several (no multiprocess dir)."""

    def collect(self) -> Iterable[Metric]:
        return APP_REGISTRY.collect()


class HostLabelled:
    """Another collector's series, each with a `host` label added."""

    def __init__(self, inner: Collector, host: str) -> None:
        self.inner, self.host = inner, host

    def collect(self) -> Iterable[Metric]:
        for metric in self.inner.collect():
            labelled = Metric(metric.name, metric.documentation, metric.type, metric.unit)
            for sample in metric.samples:
                labels = {**sample.labels, "host": self.host}
                labelled.add_sample(sample.name, labels, sample.value, sample.timestamp, sample.exemplar)
            yield labelled


def metrics(request: HttpRequest) -> HttpResponse:
    counts: Collector
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counts = multiprocess.MultiProcessCollector(CollectorRegistry())  # this host's processes
    else:
        counts = _AppCounts()
    registry = CollectorRegistry()
    registry.register(HostLabelled(counts, settings.METRICS_HOST))
    return _exposition(registry)


def deployment_metrics(request: HttpRequest) -> HttpResponse:
    registry = CollectorRegistry()
    for path in settings.METRICS_COLLECTORS:  # figures read from the database and the broker now
        registry.register(import_string(path)())
    return _exposition(registry)


def _exposition(registry: CollectorRegistry) -> HttpResponse:
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
