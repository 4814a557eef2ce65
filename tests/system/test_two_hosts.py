"""The two-host drill, short: two application hosts as network namespaces, host a's link cut
for longer than the lease while orders flow, then back. Nothing lost, nothing doubled, host b
takes host a's open emails over only after their leases ran out, and host a sends nothing
twice once it is back. About two minutes, so with the drill's other self-tests in
`make test-tools` (`make drill HOSTS=2` runs the full one); it needs root (`ip netns`)."""

import os
import shutil

import pytest

from tools.drill.two_hosts import TwoHostConfig, two_host_run
from tools.drill.two_hosts_report import two_host_markdown

pytestmark = [
    pytest.mark.tool_check,
    pytest.mark.skipif(
        os.geteuid() != 0 or not (shutil.which("ip") and shutil.which("socat") and shutil.which("unshare")),
        reason="network namespaces need root, ip, socat and unshare",
    ),
]


@pytest.mark.timeout(420)
def test_host_b_takes_over_host_as_emails_after_their_leases_and_host_a_sends_nothing_twice():
    # the product's order of clocks, shrunk: provider 1 + 2 s < soft 8 s < hard 10 s < lease 12 s
    report = two_host_run(
        TwoHostConfig(
            orders=300,  # 30 s: the link comes back while orders still flow
            rate=10,
            cut_after=0.2,
            lease_seconds=12,
            task_soft_time_limit=8,
            task_time_limit=10,
            broker_heartbeat_seconds=5,
            cut_seconds=18,  # past the lease and the heartbeat
            settle_timeout=120,
        )
    )
    print(two_host_markdown(report))
    verdict, takeover = report.verdict, report.takeover
    assert report.outcome == "PASSED", [*verdict["problems"], *takeover["problems"]]
    assert (verdict["lost"], verdict["duplicates"], verdict["unfinished"]) == (0, 0, 0)
    assert report.load["orders_placed"] == 300
    assert verdict["emails_accepted"] == verdict["emails_expected"]
    # the cut caught host a with a call open, and host b finished it, after the lease
    assert takeover["caught_by_the_cut"] >= 1
    assert (
        takeover["taken_over_by_b"] + takeover["finished_by_a_after_return"] == takeover["caught_by_the_cut"]
    )
    assert takeover["taken_over_under_a_live_lease"] == 0
    if takeover["taken_over_by_b"]:
        assert takeover["first_takeover_after_lease_expiry_seconds"] >= 0
    # the cut was real, and host a worked again once its link was back, sending nothing twice
    assert takeover["a_provider_calls_during_cut"] == 0
    assert takeover["a_provider_calls_after_return"] > 0
    assert takeover["keys_accepted_twice"] == 0
    assert report.load["requests_failed_over"] > 0  # the client found host a gone
