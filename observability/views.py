import os

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpResponse
from django.shortcuts import render
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

from observability.collectors import BrokerCollector, DatabaseCollector
from observability.dashboard import dashboard_figures
from observability.metrics import APP_REGISTRY


class _AppCounts:
    """This process's own counts, when it is not one of several (no multiprocess dir)."""

    def collect(self):
        return APP_REGISTRY.collect()


def metrics(request):
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)  # every web and worker process of this host
    else:
        registry.register(_AppCounts())
    registry.register(DatabaseCollector())
    registry.register(BrokerCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


@staff_member_required
def dashboard(request):
    return render(request, "observability/dashboard.html", dashboard_figures())
