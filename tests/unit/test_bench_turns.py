"""The bench's fixed-load phases run ours and naive in turn, repeat by repeat, and the CPU
phase reports the run of median total: what tools/bench/latency_phases.py decides on its own,
on made-up runs (tests/system/test_bench.py runs the phases for real)."""

from tools.bench.latency_phases import median_run, pipelines_in_turn


def test_each_repeat_runs_both_pipelines_and_the_first_one_alternates():
    # when
    turns = pipelines_in_turn(["ours", "naive"], 3)
    # then: a machine that slows down during the phase weighs on both alike
    assert turns == [["ours", "naive"], ["naive", "ours"], ["ours", "naive"]]
    assert pipelines_in_turn(["ours", "naive"], 1) == [["ours", "naive"]]


def _run(total: float, p50: float) -> dict:
    return {"cpu_ms_per_order": {"worker": total - 1, "postgresql": 1.0, "total": total}, "p50": p50}


def test_the_cpu_figures_are_those_of_the_run_of_median_total_with_every_total_beside_them():
    # given: three runs, the slowest first
    runs = [_run(18.0, 14.0), _run(15.0, 11.0), _run(16.0, 12.0)]
    # when
    figures = median_run(runs)
    # then: one run's components, so they still add up to its total
    assert figures["cpu_ms_per_order"] == {"worker": 15.0, "postgresql": 1.0, "total": 16.0}
    assert figures["p50"] == 12.0
    assert figures["totals"] == [18.0, 15.0, 16.0]


def test_of_an_even_count_the_lower_middle_run_is_taken():
    assert median_run([_run(16.0, 12.0), _run(15.0, 11.0)])["cpu_ms_per_order"]["total"] == 15.0
    assert median_run([_run(15.0, 11.0)])["totals"] == [15.0]
