"""The figures docs/performance.md gives of the plain confirmation at three commits in turn are
those of the committed runs (tools/bench/results/cpu-plain-confirmation-in-turn.json): runs
committed again fail here until the words follow."""

import json
import re
import statistics

from psycopg import _queries

from tools.drill.processes import REPO

RESULTS = json.loads((REPO / "tools/bench/results/cpu-plain-confirmation-in-turn.json").read_text())
FIRST, BEFORE, AFTER = RESULTS["commits"]


def _text() -> str:
    return re.sub(r"\s+", " ", (REPO / "docs/performance.md").read_text())


def _ms(commit: str, component: str) -> float:
    return statistics.median(
        run["cpu"]["ours"]["cpu_ms_per_order"][component]
        for run in RESULTS["runs"]
        if run["commit"] == commit
    )


def _rounds_higher(commit: str, than: str, component: str) -> int:
    by = {
        (run["commit"], run["round"]): run["cpu"]["ours"]["cpu_ms_per_order"][component]
        for run in RESULTS["runs"]
    }
    rounds = {run["round"] for run in RESULTS["runs"]}
    return sum(1 for r in rounds if by[commit, r] > by[than, r])


def _sentences() -> list[str]:
    rounds = len({run["round"] for run in RESULTS["runs"]})
    started = sorted(run["machine"]["started"] for run in RESULTS["runs"])
    calls = RESULTS["python_calls_per_plain_confirmation"]["by_commit"]
    added = calls[AFTER] - calls[BEFORE]
    [earlier] = [commit for commit in calls if commit not in RESULTS["commits"]]
    worker = {commit: f"{_ms(commit, 'worker'):.1f}" for commit in RESULTS["commits"]}
    rabbitmq = {commit: f"{_ms(commit, 'rabbitmq'):.1f}" for commit in RESULTS["commits"]}
    return [
        f"The cpu phase ran at three commits in turn, {rounds} rounds of one repeat each",
        f"({started[0]} to {started[-1][11:]}, `tools/bench/results/cpu-plain-confirmation-in-turn.json`): "
        f"{FIRST}, before",
        f"{BEFORE}, with that, before order edits, parcels' news and invoices; and {AFTER}, main with "
        "all three.",
        f"medians: {worker[FIRST]} ms at {FIRST}, {worker[BEFORE]} ms at {BEFORE} and {worker[AFTER]} ms at "
        f"{AFTER}, which was above {BEFORE} in {_rounds_higher(AFTER, BEFORE, 'worker')} of {rounds} rounds;",
        f"RabbitMQ's: {rabbitmq[FIRST]} ms, {rabbitmq[BEFORE]} ms and {rabbitmq[AFTER]} ms.",
        f"{calls[FIRST]:,} calls at {FIRST}, {calls[BEFORE]:,} at {BEFORE} and {calls[AFTER]:,} at {AFTER}.",
        f"added {added} calls to the handler ({100 * added / calls[BEFORE]:.1f} %)",
        f"past the {_queries.MAX_CACHED_STATEMENT_LENGTH:,} bytes up to which psycopg keeps",
        f"({calls[earlier]:,} calls at {earlier}, the commit before;",
    ]


def test_the_plain_confirmation_in_turn_as_the_performance_page_gives_it_is_the_committed_runs():
    text = _text()
    for sentence in _sentences():
        assert sentence in text, f"docs/performance.md should say, with the runs' figures: {sentence!r}"


def test_the_runs_are_three_commits_in_every_round_each_run_placing_what_it_was_asked():
    rounds: dict[int, list[str]] = {}
    for run in RESULTS["runs"]:
        rounds.setdefault(run["round"], []).append(run["commit"])
        for pipeline in ("ours", "naive"):
            assert run["cpu"][pipeline]["count"] == run["cpu"]["orders"], (run["commit"], run["round"])
    assert all(sorted(commits) == sorted(RESULTS["commits"]) for commits in rounds.values()), rounds
