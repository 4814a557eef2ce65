"""The monitoring that ships with the product: the Prometheus configuration is valid
(promtool) and scrapes both endpoints, and every query of the Grafana dashboard and every
alert names a metric the service exports, on the endpoint the configuration scrapes it from."""

import json
import re
import subprocess

import pytest
import yaml

from tools.drill.processes import REPO

PROMETHEUS = REPO / "deploy" / "prometheus"
DASHBOARD = REPO / "deploy" / "grafana" / "orders-dashboard.json"


def _queries() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel["targets"]]


def test_promtool_accepts_the_scrape_configuration():
    found = subprocess.run(
        [REPO / "scripts" / "ensure-promtool.sh"], capture_output=True, text=True, timeout=300
    )
    promtool = found.stdout.strip()
    assert promtool, f"promtool could not be had from Debian's prometheus package: {found.stderr}"
    result = subprocess.run(
        [promtool, "check", "config", "prometheus.yml"], cwd=PROMETHEUS, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_configuration_scrapes_per_host_counts_on_every_host_and_the_deployment_once():
    jobs = {
        job["job_name"]: job
        for job in yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())["scrape_configs"]
    }
    assert jobs["orders-hosts"]["metrics_path"] == "/metrics"
    assert len(jobs["orders-hosts"]["static_configs"][0]["targets"]) >= 2
    assert jobs["orders-deployment"]["metrics_path"] == "/metrics/deployment"
    assert len(jobs["orders-deployment"]["static_configs"][0]["targets"]) == 1


@pytest.mark.django_db
def test_every_dashboard_query_names_metrics_the_service_exports(endpoints):
    exported = endpoints["/metrics"] | endpoints["/metrics/deployment"]
    queries = _queries()
    assert len(queries) >= 10
    for title, expr in queries:
        used = set(re.findall(r"\borders_[a-z_]+", expr))
        assert used, title
        assert used <= exported, (title, used - exported)


@pytest.mark.django_db
def test_the_two_endpoints_share_no_metric(endpoints):
    """A figure served by both would be counted once per host in the deployment job's sums."""
    assert endpoints["/metrics"]
    assert endpoints["/metrics/deployment"]
    assert not endpoints["/metrics"] & endpoints["/metrics/deployment"]
