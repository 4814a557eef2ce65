"""Two metrics endpoints, so that figures add up across hosts:

- `/metrics`: what this host's processes counted (web, worker and relay processes sharing its
  PROMETHEUS_MULTIPROC_DIR), every series labelled with its `host` (METRICS_HOST). Scrape it
  on every host; a sum over hosts is the deployment's total.
- `/metrics/deployment`: figures read from the database and the broker when scraped (backlog,
  statuses, queue depths): the same whichever host answers, so scrape it once per deployment
  (through the load balancer), never per host.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from observability.exposition import host_registry


def metrics(request: HttpRequest) -> HttpResponse:
    return _exposition(host_registry())


def deployment_metrics(request: HttpRequest) -> HttpResponse:
    registry = CollectorRegistry()
    for path in settings.METRICS_COLLECTORS:  # figures read from the database and the broker now
        registry.register(import_string(path)())
    return _exposition(registry)


def _exposition(registry: CollectorRegistry) -> HttpResponse:
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
