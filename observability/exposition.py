"""What this host's processes counted, labelled with the host (METRICS_HOST): served by
/metrics (observability/views.py) and by `manage.py metrics_server` in pods without a web."""

from collections.abc import Iterable

from django.conf import settings
from prometheus_client import CollectorRegistry, multiprocess
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


def host_registry() -> CollectorRegistry:
    """This host's process counts (or this process's, without a multiprocess directory),
    labelled with the host: what /metrics and `manage.py metrics_server` serve."""
    counts: Collector
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if directory:  # this host's processes
        counts = multiprocess.MultiProcessCollector(CollectorRegistry(), path=directory)
    else:
        counts = _AppCounts()
    registry = CollectorRegistry()
    registry.register(HostLabelled(counts, settings.METRICS_HOST))
    return registry
