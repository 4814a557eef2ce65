"""The alert rules: valid for Prometheus, firing on the series they are for (promtool and
its rule tests), and naming only metrics this service exports. (Their runbook links:
tests/unit/test_alert_rules.py.)"""

import re
import subprocess

import pytest
import yaml

from tools.drill.processes import REPO

RULES = REPO / "deploy" / "prometheus" / "alerts.yml"


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
def test_every_alert_names_only_metrics_this_service_exports(endpoints):
    exported = endpoints["/metrics"] | endpoints["/metrics/deployment"]
    for alert in _alerts():
        used = set(re.findall(r"\borders_[a-z_]+", alert["expr"]))
        assert used, alert["alert"]
        assert used <= exported, (alert["alert"], used - exported)
