"""The web pod of the example Kubernetes manifests becomes Ready: bin/web, run with the
ConfigMap's environment and what the Deployment sets, answers its readiness probe and
Prometheus' scrape by the pod's address (kubelet and Prometheus call a pod by IP), while its
pages still answer only to the ConfigMap's host name."""

import base64
import secrets
import sys
from pathlib import Path

import pytest
import requests
from django.conf import settings

from tests.deployment_files import image_env, kubernetes_configmap, kubernetes_container_env
from tests.waiting import answers, wait_until
from tools.drill.processes import ManagedProcess, free_port

# The web reads the test database (pytest-django makes it only for a test that asks for it).
pytestmark = pytest.mark.django_db

POD_NAME = "orders-web-6b9f7c8d4-x2x8q"


def made_up_key(prefix: str) -> str:
    """A key of the provider's shape (Resend's API key, its Svix signing secret), made here."""
    return prefix + base64.b64encode(secrets.token_bytes(24)).decode()


@pytest.fixture(scope="module")
def pod_web(broker, processes_database_url, tmp_path_factory):
    """bin/web as the pod runs it. Only what a cluster provides differs: the Secret's values
    (the test's database and broker, made-up keys), the port (8000 is taken here), the bind
    address (loopback: this machine is shared; the Host check does not look at it) and the
    metrics volume (a directory of the test)."""
    tmp_path = tmp_path_factory.mktemp("pod")
    port = free_port()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        **image_env(),
        **kubernetes_configmap(),
        **kubernetes_container_env("web", "web", pod_name=POD_NAME),
        # the Secret orders-secrets
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "PERSONAL_DATA_HASH_KEY": secrets.token_urlsafe(32),
        "DATABASE_URL": processes_database_url,
        "CELERY_BROKER_URL": broker,
        "RABBITMQ_MANAGEMENT_URL": settings.RABBITMQ_MANAGEMENT_URL,
        "MAIL_PROVIDER_API_KEY": made_up_key("re_"),
        "RESEND_WEBHOOK_SECRET": made_up_key("whsec_"),
        # the cluster's part
        "WEB_PORT": str(port),
        "WEB_BIND": "127.0.0.1",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    web = ManagedProcess("web", ["bin/web"], env=env, log_path=tmp_path / "web.log")
    web.start(ready="Booting worker", timeout=60)
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{url}/healthz"), timeout=30, message="web up")
    yield url, port
    web.stop()


def _get(url: str, path: str, host: str, **headers: str) -> requests.Response:
    return requests.get(f"{url}{path}", headers={"Host": host, **headers}, timeout=10, allow_redirects=False)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/metrics/deployment"])
def test_probes_and_scrapes_by_the_pod_s_address_are_answered(pod_web, path):
    url, port = pod_web
    # kubelet and Prometheus name the pod's IP (v4 or v6) and port (the request still goes to
    # this machine's loopback); the deployment-wide scrape goes through the Service's name
    pod_addresses = (f"127.0.0.1:{port}", "10.42.0.17:8000", "[fd00:10:42::17]:8000")
    for host in (*pod_addresses, "orders-web.orders.svc:8000"):
        response = _get(url, path, host)
        assert response.status_code == 200, (host, response.status_code, response.text[:300])
    if path == "/readyz":
        assert response.json() == {"ready": True, "problems": []}
    if path.startswith("/metrics"):
        assert response.headers["Content-Type"].startswith("text/plain; version=")  # Prometheus' format


@pytest.mark.parametrize("path", ["/admin/login/", "/api/orders/", "/webhooks/resend/", "/healthz/"])
def test_pages_by_the_pod_s_address_are_still_refused(pod_web, path):
    url, port = pod_web
    assert _get(url, path, f"127.0.0.1:{port}").status_code == 400
    assert _get(url, path, f"127.0.0.1:{port}", **{"X-Forwarded-Proto": "https"}).status_code == 400


def test_a_probe_path_by_another_method_meets_the_host_check(pod_web):
    url, port = pod_web
    response = requests.post(f"{url}/metrics", headers={"Host": f"127.0.0.1:{port}"}, timeout=10)
    assert response.status_code == 400


def test_pages_answer_to_the_configmap_s_host_over_https(pod_web):
    url, _ = pod_web
    # through the TLS proxy (X-Forwarded-Proto), by the public name
    response = _get(url, "/admin/login/", "orders.example.com", **{"X-Forwarded-Proto": "https"})
    assert response.status_code == 200
    # plain HTTP by that name is sent to HTTPS, as the ConfigMap asks
    response = _get(url, "/admin/login/", "orders.example.com")
    assert response.status_code == 301
    assert response.headers["Location"] == "https://orders.example.com/admin/login/"
