"""The health probes and Prometheus' scrapes, answered whatever Host header they carry.

kubelet and Prometheus call a pod by its IP (`Host: 10.1.2.3:8000`, or `[fd00::3]:8000`), and
/metrics/deployment is scraped once through an internal name; ALLOWED_HOSTS names the public
host only, so Django's host check answered them 400 and no pod ever became Ready. Adding the
pod's IP (or "*") to ALLOWED_HOSTS would let every page answer to that Host as well. These
paths build nothing from the Host (no link, no redirect), so a GET of one is answered here,
before any middleware reads the Host; every other request meets the host check unchanged.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import resolve


class ProbePathsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self.paths = frozenset(settings.PROBE_PATHS)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "GET" and request.path_info in self.paths:
            match = resolve(request.path_info)
            response: HttpResponse = match.func(request, *match.args, **match.kwargs)
            return response
        return self.get_response(request)
