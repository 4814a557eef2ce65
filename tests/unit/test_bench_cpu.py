"""The bench's CPU accounting (tools/bench/cpu.py) on real processes: a process group's CPU is
counted to its name, this process's to the bench, and the per-order figures add up."""

import subprocess
import sys
import time

from tools.bench.cpu import cpu_by_component, cpu_ms_per_order
from tools.bench.report import cpu_lines

BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\ntime.sleep(30)"


def test_a_process_groups_cpu_is_counted_to_its_name_and_the_bench_to_itself():
    burner = subprocess.Popen([sys.executable, "-c", BURN], start_new_session=True)
    try:
        before = cpu_by_component({"burner": burner.pid})
        spent = time.process_time()
        while time.process_time() < spent + 0.2:  # this process burns too: the bench's share
            pass
        time.sleep(0.6)  # the burner's 0.4 s of CPU are over by now
        after = cpu_by_component({"burner": burner.pid})
    finally:
        burner.kill()
        burner.wait()
    # then
    assert 0.3 <= after["burner"] - before["burner"] <= 0.6
    assert after["bench"] - before["bench"] >= 0.15
    assert {"postgresql", "rabbitmq", "other"} <= set(after)


def test_per_order_figures_are_the_differences_in_ms_and_add_up_to_the_total():
    before = {"worker": 1.0, "bench": 2.0, "postgresql": 3.0, "rabbitmq": 0.5, "other": 9.0}
    after = {"worker": 1.5, "bench": 2.1, "postgresql": 3.2, "rabbitmq": 0.6, "other": 99.0}
    # when
    per_order = cpu_ms_per_order(before, after, orders=100)
    # then: ms per order, the machine's unrelated processes left out of the total
    assert per_order == {"worker": 5.0, "bench": 1.0, "postgresql": 2.0, "rabbitmq": 1.0, "total": 9.0}


def test_the_report_puts_ours_beside_naive_by_component():
    def pipeline(worker_key, worker_ms):
        figures = {worker_key: worker_ms, "bench": 3.0, "postgresql": 2.0, "total": worker_ms + 5}
        return {"cpu_ms_per_order": figures, "p50": 15.0, "p99": 30.0}

    cpu = {"orders": 1000, "rate": 50, "ours": pipeline("worker", 12.0), "naive": pipeline("naive", 10.0)}
    # when
    lines = cpu_lines(cpu)
    # then
    assert "| worker (main process and pool) | 12.00 | 10.00 | 1.20 |" in lines
    assert "| total | 17.00 | 15.00 | 1.13 |" in lines
    assert not [line for line in lines if line.startswith("| relay |")]  # neither pipeline had one
    assert lines[-1] == "| commit → sent p50 / p99 in the same run, ms | 15.0 / 30.0 | 15.0 / 30.0 | |"
    assert cpu_lines(None) == []


def test_the_contended_phases_spinner_takes_a_core_and_stops_by_itself(tmp_path):
    from tools.bench.cpu_hog import CpuHog

    # when: a spinner bounded to 2 s
    hog = CpuHog(tmp_path / "hog.log", seconds=2).start()
    try:
        time.sleep(1)
        # then it spins, at most one core's worth, and says how much (on a busy machine it
        # shares the cores: the bench's floor is its own check)
        assert 0.2 <= hog.cores() <= 1.05
        assert hog.running()
        time.sleep(2)  # past its bound: it has ended by itself
        assert not hog.running()
    finally:
        hog.stop()
