"""The two-host drill's pure parts: the hosts' addresses and names, the proxy's reading of a
provider call's key, and the takeover's verdict (tools/drill/netns.py, tools/drill/netproxy.py,
tools/drill/takeover.py). The drill itself: tests/system/test_two_hosts.py."""

import ipaddress

import pytest

from tools.drill.netns import DRILL_RANGE, HostNetwork, host_addresses, host_subnet
from tools.drill.netproxy import IDEMPOTENCY_KEY_HEADER
from tools.drill.takeover import Attempt, takeover_judge

PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]


@pytest.mark.parametrize("index", [1, 2, 254])
def test_every_host_address_is_in_the_benchmark_range_and_in_no_private_one(index):
    root, host = (ipaddress.ip_address(a) for a in host_addresses(index))
    for address in (root, host):
        assert address in DRILL_RANGE
        assert not any(address in network for network in PRIVATE)
    assert root != host
    assert {root, host} <= set(host_subnet(index))


def test_two_hosts_never_share_a_subnet_and_an_index_out_of_range_is_refused():
    assert not host_subnet(1).overlaps(host_subnet(2))
    for index in (0, 255):
        with pytest.raises(ValueError, match=r"outside 1\.\.254"):
            host_subnet(index)


def test_a_hosts_names_are_its_own_and_fit_the_kernels_limits():
    a, b = HostNetwork.new("a", 1), HostNetwork.new("b", 2)
    assert a.namespace.startswith("orders-a-")
    assert b.namespace.startswith("orders-b-")
    assert len({a.namespace, b.namespace, a.root_veth, a.host_veth, b.root_veth, b.host_veth}) == 6
    assert all(len(name) <= 15 for name in (a.root_veth, a.host_veth))  # IFNAMSIZ - 1
    assert HostNetwork.new("a", 1).namespace != a.namespace  # a leftover never collides


def test_a_hosts_setup_gives_each_end_its_address_and_runs_commands_inside_it():
    network = HostNetwork(label="a", index=1, suffix="abc123")
    commands = [" ".join(c) for c in network.setup_commands()]
    assert "ip addr add 198.18.1.1/24 dev oaabc123r" in commands
    assert "ip -n orders-a-abc123 addr add 198.18.1.2/24 dev oaabc123h" in commands
    # during the cut the host's addresses are unreachable here, never sent off this machine
    assert "ip route add unreachable 198.18.1.0/24 metric 4000" in commands
    assert network.exec_prefix()[:4] == ["ip", "netns", "exec", "orders-a-abc123"]
    assert network.exec_prefix()[-1] == "drill-host-a-abc123"  # its own host name (UTS namespace)


def test_the_proxy_reads_the_key_of_a_provider_call_and_not_a_lookalike_header():
    request = (
        b"POST /emails HTTP/1.1\r\nHost: 198.18.1.1\r\nX-Idempotency-Key: smtp-only\r\n"
        b"Idempotency-Key: notification-42-1\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert [m.group(1) for m in IDEMPOTENCY_KEY_HEADER.finditer(request)] == [b"notification-42-1"]


CUT_START, CUT_END, LEASE = 1000.0, 1045.0, 30.0


def _judge(attempts, *, a_calls=(), accepted=()):
    return takeover_judge(
        attempts,
        cut_start=CUT_START,
        cut_end=CUT_END,
        lease_seconds=LEASE,
        a_calls=list(a_calls),
        accepted=list(accepted),
    )


def test_host_bs_attempt_after_host_as_lease_ran_out_is_a_takeover():
    verdict = _judge(
        [
            Attempt(7, 1, "a", started_at=998.0, finished_at=None),  # open when the link went
            Attempt(7, 2, "b", started_at=1031.5, finished_at=1032.5),  # lease ran out at 1028
            Attempt(8, 1, "a", started_at=990.0, finished_at=991.0),  # done before the cut
            Attempt(8, 2, "b", started_at=992.0, finished_at=993.0),  # an ordinary retry
        ]
    )
    assert (verdict.caught_by_the_cut, verdict.taken_over_by_b, verdict.taken_over_under_a_live_lease) == (
        1,
        1,
        0,
    )
    assert verdict.first_takeover_after_lease_expiry_seconds == 3.5
    assert verdict.takeover_seconds_after_cut == [31.5]
    assert verdict.passed


def test_a_takeover_while_host_as_lease_was_live_fails_the_drill():
    verdict = _judge(
        [
            Attempt(7, 1, "a", started_at=998.0, finished_at=1050.0),  # recorded after the return
            Attempt(7, 2, "b", started_at=1010.0, finished_at=1011.0),  # 18 s before its lease ran out
        ]
    )
    assert verdict.taken_over_under_a_live_lease == 1
    assert "18.0 s before host a's lease ran out" in verdict.problems[0]
    assert not verdict.passed


def test_an_email_host_a_finished_itself_after_its_link_returned_is_counted_so():
    verdict = _judge([Attempt(7, 1, "a", started_at=1040.0, finished_at=1046.0)])
    assert (verdict.caught_by_the_cut, verdict.finished_by_a_after_return) == (1, 1)
    assert verdict.passed


def test_host_a_reaching_the_provider_during_the_cut_means_the_cut_was_not_real():
    verdict = _judge([], a_calls=[(1020.0, "k1")])
    assert verdict.a_provider_calls_during_cut == 1
    assert not verdict.passed


def test_a_repeat_after_the_return_is_counted_and_a_key_accepted_twice_fails():
    accepted = [(1030.0, "k1"), (1050.0, "k2")]
    verdict = _judge([], a_calls=[(1046.0, "k1"), (1049.0, "k2")], accepted=accepted)
    assert (verdict.a_provider_calls_after_return, verdict.a_repeats_after_return) == (2, 1)
    assert verdict.passed  # a repeat under the same key is no second email
    twice = _judge([], accepted=[*accepted, (1060.0, "k2")])
    assert twice.keys_accepted_twice == 1
    assert not twice.passed
