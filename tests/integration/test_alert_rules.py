"""The alert rules: valid for Prometheus, firing on the series they are for (promtool and
its rule tests), and naming only metrics this service exports. (Their runbook links:
tests/unit/test_alert_rules.py.)"""

import re
import subprocess

import pytest
import yaml

from drill.processes import REPO
from messaging import metrics as broker_metrics

RULES = REPO / "ops" / "prometheus" / "alerts.yml"


def _alerts() -> list[dict]:
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]


def test_promtool_accepts_the_rules_and_their_unit_tests_pass():
    found = subprocess.run(
        [REPO / "scripts" / "ensure-promtool.sh"], capture_output=True, text=True, timeout=300
    )
    promtool = found.stdout.strip()
    assert promtool, f"promtool could not be had from Debian's prometheus package: {found.stderr}"
    for command in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts.test.yml"]):
        result = subprocess.run([promtool, *command], cwd=RULES.parent, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.django_db
def test_every_alert_names_only_metrics_this_service_exports(client, broker):
    broker_metrics._broker_cache = (0.0, None)  # read the test vhost now, not a cached answer
    exposition = client.get("/metrics").content.decode()
    exported = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", exposition, re.MULTILINE):
        suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"]}.get(kind, [""])
        base = name.removesuffix("_total") if kind == "counter" else name  # both spellings occur
        exported |= {base + suffix for suffix in suffixes}
    for alert in _alerts():
        used = set(re.findall(r"\borders_[a-z_]+", alert["expr"]))
        assert used, alert["alert"]
        assert used <= exported, (alert["alert"], used - exported)
