"""`make bench` must not rot between the runs people read: a short real run of its raw-limit
phase on its own database and vhost. (Its report and checks: tests/unit/test_bench.py.)"""

import json
import subprocess
import sys

from drill.processes import REPO


def test_a_short_bench_run_measures_the_raw_limits_on_its_own_database_and_vhost(tmp_path):
    # when
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--phases", "raw", "--repeats", "1", "--out", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # then
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "raw-latest.json").read_text())
    assert results["raw_broker_confirms_msgs_per_s"]["median"] > 100
    assert results["raw_pg_order_outbox_tx_per_s"]["median"] > 10
    assert results["machine"]["cpus"] >= 1
