"""docs/performance.md states no figure the code does not hold: its targets are those of
`tools/bench/targets.py`, the bench's bounds those of its code, and the cost ceilings those
that `tests/integration/test_costs.py` asserts. Read from the code, no service needed."""

import re
from pathlib import Path

from tests.unit.code_figures import module_constants, words
from tools.bench.targets import targets_stated

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "performance.md").read_text()


def _table_rows(heading_row: str) -> list[list[str]]:
    """The cells of each row of the table whose header row starts with `heading_row`."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading_row))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_targets_table_is_the_benchs_own():
    assert _table_rows("| target | bound |") == [list(row) for row in targets_stated()]


def test_the_benchs_bounds_are_its_code():
    measure = module_constants("tools/bench/measure.py")
    pipelines = module_constants("tools/bench/pipelines.py")
    latency = module_constants("tools/bench/latency_phases.py")
    throughput = module_constants("tools/bench/throughput_phases.py")
    assert f"as fast as {words(measure['PLACERS'])} placer threads can" in DOC
    assert f"below {pipelines['OFFERED_SHARE_PLACED']:g} of the offered load placed, the run fails" in DOC
    assert f"if the spinner got less than {_share(latency['HOG_FLOOR_CORES'])} a core" in DOC
    assert f"fixed offered loads of {_listed(latency['OFFERED_LOADS'])} orders/s" in DOC
    assert f"the latency phase at {_listed(latency['CONTENDED_LOADS'])} orders/s while" in DOC
    assert f"CPU ms per order of each component at {latency['CPU_RATE']} orders/s" in DOC
    workers = _listed(throughput["SCALING_WORKER_PROCESSES"])
    relays = _listed(throughput["SCALING_RELAY_PROCESSES"])
    assert f"ours end to end at {workers} worker processes, each with {relays} relay processes" in DOC


def test_the_cost_ceilings_are_those_the_cost_test_asserts():
    costs = module_constants("tests/integration/test_costs.py")
    stated = {row[0]: row[1] for row in _table_rows("| path | SQL statements |")}
    assert stated == {
        "`POST /api/orders/`": f"at most {costs['ORDER_API_STATEMENTS']}",
        "`POST /api/orders/`, a shop's order": f"at most {costs['ORDER_API_STATEMENTS'] + 1}",
        "relay sweep": (
            f"{costs['STATEMENTS_PER_BATCH']} per batch, {costs['CLAIM_STATEMENTS']} for the last claim"
        ),
        "processing one event": f"{costs['HANDLER_STATEMENTS']}",
        "a duplicate delivery": f"{costs['DUPLICATE_STATEMENTS']}",
        f"a batch of {costs['BATCH']} events": f"{costs['BATCH_STATEMENTS']}",
    }


def _share(value: float) -> str:
    return {0.5: "half", 0.25: "a quarter of"}[value]


def _listed(numbers: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"


def test_the_lines_each_device_costs_are_its_files_lines():
    # "N (`a.py`, `b.py`, ...)" in the devices' tables: N is the lines of the files named.
    stated = re.findall(r"\| (\d+) \(((?:`[\w/]+\.py`(?:, )?)+)", DOC)
    assert len(stated) == 4
    for count, paths in stated:
        files = re.findall(r"`([\w/]+\.py)`", paths)
        lines = sum(len((REPO / path).read_text().splitlines()) for path in files)
        assert int(count) == lines, f"{files}: {lines} lines, the table says {count}"
