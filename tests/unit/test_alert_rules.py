"""The alert rules point to the runbook: each links to a section of docs/operations.md that
exists, with a summary and a severity. (tests/integration/test_alert_rules.py runs promtool
on them and checks the metrics they name against the service's /metrics.)"""

import re

import yaml

from tools.drill.processes import REPO

RULES = REPO / "deploy" / "prometheus" / "alerts.yml"
RUNBOOK = REPO / "docs" / "operations.md"


def _alerts() -> list[dict]:
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]


def test_every_alert_links_to_a_runbook_section_that_exists():
    headings = re.findall(r"^#+ (.+)$", RUNBOOK.read_text(), re.MULTILINE)
    anchors = {re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-") for heading in headings}
    for alert in _alerts():
        path, _, anchor = alert["annotations"]["runbook_url"].partition("#")
        assert (REPO / path) == RUNBOOK, alert["alert"]
        assert anchor in anchors, (alert["alert"], anchor)
        assert alert["annotations"]["summary"]
        assert alert["labels"]["severity"] in ("page", "ticket")


def test_no_worker_consuming_watches_every_work_queue_and_no_dead_letter_queue():
    from messaging.broker.topology import MAINTENANCE_QUEUE, dead_letter_queue_name
    from messaging.registry import work_queue_names

    [rule] = [alert for alert in _alerts() if alert["alert"] == "NoWorkerConsuming"]
    watched = re.search(r'queue=~"([^"]+)"', rule["expr"])
    assert watched, rule["expr"]
    pattern = re.compile(watched.group(1).replace("\\\\", "\\"))
    for queue in work_queue_names():
        assert pattern.fullmatch(queue), f"NoWorkerConsuming misses {queue}"
        assert not pattern.fullmatch(dead_letter_queue_name(queue))
    assert not pattern.fullmatch(MAINTENANCE_QUEUE.name)  # the relay's, watched by the outbox's age
