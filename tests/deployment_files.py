"""The deployment's files as a process started from them sees them: the image's environment
(the Dockerfile's ENV), the example Kubernetes manifests (deploy/kubernetes/) and
docker-compose.yml. Read by the unit tests of their shape and by the integration tests that
run a real process with their settings."""

import re
import shlex

import yaml

from tools.drill.processes import REPO

MANIFESTS = REPO / "deploy" / "kubernetes"


def kubernetes_documents() -> list[dict]:
    return [
        doc
        for path in sorted(MANIFESTS.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def kubernetes_configmap() -> dict[str, str]:
    [config] = [doc for doc in kubernetes_documents() if doc["kind"] == "ConfigMap"]
    return config["data"]


def kubernetes_container_env(component: str, container: str, *, pod_name: str) -> dict[str, str]:
    """The `env` a Deployment's container sets itself; `metadata.name` from the downward API
    is `pod_name`."""
    [deployment] = [
        doc
        for doc in kubernetes_documents()
        if doc["kind"] == "Deployment"
        and doc["metadata"]["labels"]["app.kubernetes.io/component"] == component
    ]
    [spec] = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == container]
    env = {}
    for variable in spec.get("env", []):
        if "value" in variable:
            env[variable["name"]] = variable["value"]
        else:
            assert variable["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}, variable
            env[variable["name"]] = pod_name
    return env


def image_env() -> dict[str, str]:
    """The variables the Dockerfile's ENV instructions set (in the form NAME=value)."""
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            env |= dict(word.split("=", 1) for word in shlex.split(line.removeprefix("ENV ")))
    return env


def compose_service_env(service: str) -> dict[str, str]:
    """A docker-compose.yml service's environment as `docker compose up` sets it when none of
    the variables it interpolates is exported: `${NAME:-default}` is the default (a
    `${NAME:?message}` is left as written: compose refuses to start without it)."""
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    environment = compose["services"][service].get("environment", {})
    return {name: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value)) for name, value in environment.items()}
