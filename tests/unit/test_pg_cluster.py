"""The drill's PostgreSQL cluster as configured, before anything runs (tools/drill/pg_cluster.py
and its parts): Patroni's own validator accepts each node's configuration and would not
quietly change Patroni's clocks; synchronous mode is on unless the counter-proof asks for it
off; Patroni's copy holds what it needs; and the command refuses bad input with a usage error.
No service needed."""

from pathlib import Path

import pytest
from patroni.validator import schema

from tools.drill import patroni_config
from tools.drill.patroni_config import dynamic_config, node_config
from tools.drill.patroni_runtime import PATRONI_REQUIREMENT, distributions_needed
from tools.drill.pg_cluster import main, postgres_bin_dir

# What Patroni's validator says of any cluster on one machine without an etcd running: the
# addresses are loopback on purpose (the drill's cluster is this machine's alone).
ABOUT_THIS_MACHINE = ('must not contain "127.0.0.1"', "is not reachable")


def _node(*, synchronous: bool = True) -> dict:
    return node_config(
        scope="drill-test",
        name="node0",
        home=Path("/tmp/drill-pg-test/node0"),
        port=25432,
        api_port=28008,
        etcd_url="http://127.0.0.1:22379",
        bin_dir=postgres_bin_dir(),
        synchronous=synchronous,
    )


@pytest.mark.parametrize("synchronous", [True, False])
def test_patroni_s_validator_accepts_each_node_s_configuration(synchronous):
    problems = [
        problem
        for problem in schema(_node(synchronous=synchronous))
        if not any(known in problem for known in ABOUT_THIS_MACHINE)
    ]
    assert problems == []


def test_patroni_keeps_the_clocks_as_set():
    # Patroni raises a ttl under 20 s, and lowers loop_wait or retry_timeout (with a warning in
    # its log) when loop_wait + 2 * retry_timeout > ttl: the figures stated would not hold
    dcs = dynamic_config(synchronous=True)
    assert dcs["ttl"] >= 20
    assert dcs["loop_wait"] >= 1
    assert dcs["retry_timeout"] >= 3
    assert dcs["loop_wait"] + 2 * dcs["retry_timeout"] <= dcs["ttl"]
    assert (dcs["ttl"], dcs["loop_wait"], dcs["retry_timeout"], dcs["primary_start_timeout"]) == (
        patroni_config.TTL_SECONDS,
        patroni_config.LOOP_WAIT_SECONDS,
        patroni_config.RETRY_TIMEOUT_SECONDS,
        patroni_config.PRIMARY_START_TIMEOUT_SECONDS,
    )


def test_commits_wait_for_a_standby_unless_the_counter_proof_asks_otherwise():
    synchronous, asynchronous = dynamic_config(synchronous=True), dynamic_config(synchronous=False)
    assert synchronous["synchronous_mode"] is synchronous["synchronous_mode_strict"] is True
    assert asynchronous["synchronous_mode"] is asynchronous["synchronous_mode_strict"] is False
    assert synchronous["postgresql"]["use_pg_rewind"] is True


def test_each_node_listens_on_loopback_only_with_its_data_under_its_own_folder():
    node = _node()
    assert node["postgresql"]["listen"] == "127.0.0.1:25432"
    assert node["restapi"]["listen"] == "127.0.0.1:28008"
    assert node["postgresql"]["data_dir"] == "/tmp/drill-pg-test/node0/data"
    assert all("127.0.0.1/32" in rule for rule in node["postgresql"]["pg_hba"] if rule.startswith("host"))


def test_patroni_s_copy_holds_its_etcd_client_and_its_driver_and_no_other_extra():
    needed = distributions_needed(PATRONI_REQUIREMENT)
    assert needed[0] == "patroni"
    assert {"python-etcd", "psycopg", "psycopg-binary", "pyyaml", "psutil"} <= set(needed)
    assert not {"kazoo", "boto3", "pysyncobj"} & set(needed)  # other stores' clients


@pytest.mark.parametrize("argv", [["--nodes", "1"], ["--nodes", "three"]])
def test_bad_options_are_a_usage_error_before_anything_starts(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
