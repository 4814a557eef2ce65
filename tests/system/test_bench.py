"""`make bench` must not rot between the runs people read: short real runs of its phases on
their own database and vhost, a few dozen orders each. (Its report and checks:
tests/unit/test_bench.py.)"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.drill.processes import REPO

# Minutes of real runs: `make test-tools` and CI run them, `make test` does not.
pytestmark = pytest.mark.tool_check


def _bench(out: Path, *args: str) -> dict:
    """A run of `python -m tools.bench` with these arguments, once; its figures."""
    run = subprocess.run(
        [sys.executable, "-m", "tools.bench", "--repeats", "1", "--out", str(out), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=330,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (written,) = out.glob("*-latest.json")
    return json.loads(written.read_text())


def test_a_short_bench_run_measures_the_raw_limits_on_its_own_database_and_vhost(tmp_path):
    # when
    results = _bench(tmp_path, "--phases", "raw")
    # then
    assert results["raw_broker_confirms_msgs_per_s"]["median"] > 100
    assert results["raw_pg_order_outbox_tx_per_s"]["median"] > 10
    assert results["machine"]["cpus"] >= 1


@pytest.mark.timeout(360)  # seven workers started one after the other, on shared cores
def test_a_short_drain_compares_ours_with_naive_and_with_naive_at_its_fastest_prefetch(tmp_path):
    # when
    results = _bench(tmp_path, "--phases", "drain", "--drain-orders", "40")
    # then: tuned naive's prefetch multiplier is the fastest of its drains, each measured
    tuned = results["tuned_naive"]
    sweep = {
        row["prefetch_multiplier"]: row["drain_per_s"]["median"] for row in tuned["drain_per_s_by_prefetch"]
    }
    assert sorted(sweep) == [1, 4, 16, 64]
    assert all(rate > 0 for rate in sweep.values())
    assert tuned["prefetch_multiplier"] == max(sweep, key=lambda multiplier: sweep[multiplier])
    assert tuned["orders_per_drain"] == 20
    assert tuned["worker_processes"] == 2
    # and ours is measured against both naive pipelines
    drain = {name: results[f"drain_{name}_per_s"]["median"] for name in ("ours", "naive", "tuned_naive")}
    assert all(rate > 0 for rate in drain.values())
    assert results["ratios"] == {
        "drain_ours_over_naive": pytest.approx(drain["ours"] / drain["naive"]),
        "drain_ours_over_tuned_naive": pytest.approx(drain["ours"] / drain["tuned_naive"]),
    }


@pytest.mark.timeout(360)  # six worker and six relay processes started, on shared cores
def test_a_short_run_saturates_both_naive_pipelines_and_ours_at_each_worker_and_relay_count(tmp_path):
    # when
    results = _bench(
        tmp_path,
        *("--phases", "saturation,scaling", "--load-seconds", "0.5"),
        *("--scaling-orders", "30", "--tuned-prefetch", "16"),
    )
    # then
    assert results["tuned_naive"]["prefetch_multiplier"] == 16
    assert results["tuned_naive"]["chosen_by"] == "given"
    saturating = {
        name: results[f"saturating_{name}_orders_per_s"]["median"]
        for name in ("ours", "naive", "tuned_naive")
    }
    assert all(rate > 0 for rate in saturating.values())
    assert results["ratios"]["saturating_ours_over_tuned_naive"] == pytest.approx(
        saturating["ours"] / saturating["tuned_naive"]
    )
    scaling = results["scaling"]
    assert scaling["orders_per_run"] == 30
    configurations = scaling["configurations"]
    assert [(row["worker_processes"], row["relay_processes"]) for row in configurations] == [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
        (4, 1),
        (4, 2),
    ]
    for row in configurations:
        assert row["orders_per_s"]["median"] > 0
        assert row["orders_per_s_per_worker_process"] == pytest.approx(
            row["orders_per_s"]["median"] / row["worker_processes"]
        )


def test_a_short_cpu_phase_counts_each_components_cpu_per_order_for_ours_and_naive(tmp_path):
    # when
    results = _bench(tmp_path, "--phases", "cpu", "--cpu-orders", "40")
    # then: both pipelines carried the orders at the phase's rate, their CPU counted by part
    cpu = results["cpu"]
    assert (cpu["orders"], cpu["rate"]) == (40, 50)
    for name, worker in (("ours", "worker"), ("naive", "naive")):
        figures = cpu[name]["cpu_ms_per_order"]
        assert cpu[name]["count"] == 40
        for component in (worker, "bench", "mailsim", "postgresql", "rabbitmq"):
            assert figures[component] > 0, (name, component, figures)
        assert figures["total"] == pytest.approx(
            sum(value for key, value in figures.items() if key != "total"), abs=0.05
        )
    assert "relay" in cpu["ours"]["cpu_ms_per_order"]
    assert "relay" not in cpu["naive"]["cpu_ms_per_order"]


@pytest.mark.timeout(360)
def test_a_short_invoice_phase_prices_the_pdf_each_paid_orders_confirmation_carries(tmp_path):
    # when: orders with lines paid at placing, without and with their invoice in turn
    results = _bench(tmp_path, "--phases", "invoice", "--invoice-orders", "10", "--repeats", "2")
    # then: each run did what it was asked, every email of the invoiced runs with its PDF
    invoice = results["invoice"]
    assert (invoice["orders"], invoice["rate"]) == (10, 10)
    for side, documents in (("without", 0), ("with", 10)):
        done = invoice[side]
        assert (done["orders_placed"], done["emails_sent"], done["messages_taken"]) == (10, 10, 10)
        assert (done["invoices_issued"], done["messages_with_a_pdf"]) == (documents, documents)
        assert len(invoice["worker_ms_per_email"][side]["runs"]) == 2
    # and the PDF costs the worker more than the rest of the email, and weighs kilobytes
    assert invoice["worker_ratio"] > 1.5
    assert invoice["worker_added_ms"] > 0
    assert 1_000 < invoice["pdf_bytes"]["min"] <= invoice["pdf_bytes"]["max"] < 1_000_000
    assert results["ratios"]["invoice_worker_cpu_with_over_without"] == invoice["worker_ratio"]


def test_a_short_intake_phase_posts_signed_deliveries_to_the_web_process_and_checks_every_answer(tmp_path):
    # when: 1 s at each load, through bin/web, while ours sends the orders' emails
    results = _bench(tmp_path, "--phases", "intake", "--load-seconds", "1")
    # then: every delivery answered as it should be (the phase fails otherwise), at the offered rate
    intake = results["intake_ms"]
    assert intake["retry_every"] == 4
    assert set(intake["loads"]) == {"25", "50"}  # JSON keys
    for load, figures in intake["loads"].items():
        assert figures["posted_per_s"]["median"] >= 0.9 * int(load)
        assert 0 < figures["p50"]["median"] <= figures["p99"]["median"] < 5000


@pytest.mark.timeout(420)
def test_a_short_run_times_both_pipelines_stage_by_stage_and_beside_a_spinning_core(tmp_path):
    # when
    results = _bench(tmp_path, "--phases", "stages,contended", "--load-seconds", "1")
    # then: the stages of both pipelines at both loads, each step within the whole
    stages = results["stages_ms"]
    assert stages["orders"] == 500
    assert sorted(stages["rates"]) == ["100", "50"]  # JSON keys
    for by_pipeline in stages["rates"].values():
        for name in ("ours", "naive"):
            figures = by_pipeline[name]
            for step in ("to_claim", "claim_to_sent", "provider_call"):
                assert 0 < figures[step]["p50"] <= figures["total"]["p50"], (name, step, figures)
        assert by_pipeline["ours"]["to_marked_published"]["p50"] > 0
    # and the latency of both at 50 and 100 orders/s while the spinner held at least half a core
    contended = results["contended_latency_ms"]
    for name in ("ours", "naive"):
        assert sorted(contended["loads"][name]) == ["100", "50"]
        assert contended["hog_cores"][name] >= 0.5
        for load, figures in contended["loads"][name].items():
            assert figures["placed_per_s"]["median"] >= 0.9 * int(load)
    assert {"contended_p50_at_50_ours_over_naive", "contended_p99_at_100_ours_over_naive"} <= set(
        results["ratios"]
    )
