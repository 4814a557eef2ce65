"""The example Kubernetes manifests (deploy/kubernetes/) cannot be applied here, so their shape
is checked the way docker-compose.yml's is: the same commands as the Procfile, probes on
every container, one image, every variable documented, the scaling on real work queues, and
the grace periods the guarantees need."""

import re

import yaml
from django.conf import settings

from messaging.registry import event_types
from notifications.events import (
    CANCELLATIONS_QUEUE,
    CONFIRMATIONS_QUEUE,
    EMAIL_KIND_OF_EVENT,
    REFUNDS_QUEUE,
    SHIPMENTS_QUEUE,
)
from tests.deployment_files import kubernetes_documents as _documents
from tests.unit.test_compose import _procfile
from tools.drill.processes import REPO


def _deployments() -> dict[str, dict]:
    return {
        doc["metadata"]["labels"]["app.kubernetes.io/component"]: doc
        for doc in _documents()
        if doc["kind"] == "Deployment"
    }


def _pod(name: str) -> dict:
    return _deployments()[name]["spec"]["template"]["spec"]


def _containers() -> list[dict]:
    pods = [d["spec"]["template"]["spec"] for d in _deployments().values()]
    pods += [d["spec"]["template"]["spec"] for d in _documents() if d["kind"] == "Job"]
    return [container for pod in pods for container in pod["containers"]]


def test_every_procfile_process_but_the_simulator_runs_with_the_same_command():
    procfile = _procfile()
    deployments = _deployments()
    assert set(deployments) == set(procfile) - {"mailsim"}  # production sends to a real provider
    for name, deployment in deployments.items():
        main = deployment["spec"]["template"]["spec"]["containers"][0]
        assert main["command"] == procfile[name].split(), name


def test_every_long_running_container_has_a_liveness_probe_and_the_web_a_readiness_probe():
    for name, deployment in _deployments().items():
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            assert container.get("livenessProbe"), (name, container["name"])
    web = _pod("web")["containers"][0]
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_one_image_and_every_variable_is_documented_in_env_example():
    documented = set(
        re.findall(r"^#?(?:prod:)?\s*([A-Z][A-Z0-9_]+)=", (REPO / ".env.example").read_text(), re.MULTILINE)
    )
    assert {c["image"] for c in _containers()} == {"order-notifications:latest"}
    [config] = [d for d in _documents() if d["kind"] == "ConfigMap"]
    names = set(config["data"]) | {e["name"] for c in _containers() for e in c.get("env", [])}
    assert names - documented == set()


def test_pods_without_a_web_serve_their_metrics_from_the_shared_directory():
    directory = next(d for d in _documents() if d["kind"] == "ConfigMap")["data"]["PROMETHEUS_MULTIPROC_DIR"]
    for name in ("worker", "relay"):
        containers = _pod(name)["containers"]
        sidecar = next(c for c in containers if c["command"][:3] == ["python", "manage.py", "metrics_server"])
        for container in containers:
            assert {m["mountPath"] for m in container["volumeMounts"]} == {directory}, (
                name,
                container["name"],
            )
        assert _deployments()[name]["spec"]["template"]["metadata"]["annotations"][
            "prometheus.io/port"
        ] == str(sidecar["ports"][0]["containerPort"])


def test_keda_scales_the_workers_on_the_email_queues():
    [scaled] = [d for d in _documents() if d["kind"] == "ScaledObject"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == _deployments()["worker"]["metadata"]["name"]
    assert scaled["spec"]["minReplicaCount"] >= 2
    queues = {t["metadata"]["queueName"] for t in scaled["spec"]["triggers"] if t["type"] == "rabbitmq"}
    emails = {event.queue for name, event in event_types().items() if name in EMAIL_KIND_OF_EVENT}
    assert emails == {CONFIRMATIONS_QUEUE, CANCELLATIONS_QUEUE, SHIPMENTS_QUEUE, REFUNDS_QUEUE}
    assert queues == emails


def test_two_beats_are_safe_and_a_worker_may_finish_its_calls_before_it_is_killed():
    assert _deployments()["beat"]["spec"]["replicas"] == 2
    assert settings.CELERY_BEAT_SCHEDULER == "messaging.beat.leader:LeaderScheduler"  # one leads
    # SIGTERM is a warm shutdown: the pod must outlive the longest task it may be running.
    assert _pod("worker")["terminationGracePeriodSeconds"] > settings.CELERY_TASK_TIME_LIMIT


def test_the_web_s_probes_and_scrapes_are_paths_answered_whatever_the_host():
    # kubelet and Prometheus call the pod by its IP, which ALLOWED_HOSTS does not name
    # (tests/integration/test_kubernetes_web.py runs the pod's web and calls them so).
    web = _deployments()["web"]["spec"]["template"]
    [container] = web["spec"]["containers"]
    called = {container[probe]["httpGet"]["path"] for probe in ("readinessProbe", "livenessProbe")}
    called.add(web["metadata"]["annotations"]["prometheus.io/path"])
    prometheus = yaml.safe_load((REPO / "deploy" / "prometheus" / "prometheus.yml").read_text())
    called |= {job["metrics_path"] for job in prometheus["scrape_configs"]}
    assert called <= set(settings.PROBE_PATHS)
