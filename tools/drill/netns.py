"""Application hosts as Linux network namespaces: each with its own address on a veth pair
to the root namespace, where PostgreSQL, RabbitMQ and the mail simulator are reached through
proxies on the root side's address. Cutting a host = its root-side link down; restoring =
up again. Addresses come from 198.18.0.0/15 (RFC 2544, for benchmarks), never from the
private ranges a real network on this machine may use.

Needs root (`ip netns`, `ip link`). Every namespace and veth made here is deleted by
`HostNetwork.destroy`, which the two-host drill calls in a `finally`.
"""

import ipaddress
import secrets
import subprocess
from dataclasses import dataclass

DRILL_RANGE = ipaddress.IPv4Network("198.18.0.0/15")
MAX_HOSTS = 254  # 198.18.1.0/24 .. 198.18.254.0/24


def host_subnet(index: int) -> ipaddress.IPv4Network:
    """The /24 of the index-th host (1-based): 198.18.<index>.0/24."""
    if not 1 <= index <= MAX_HOSTS:
        raise ValueError(f"host index {index} is outside 1..{MAX_HOSTS}")
    subnet = ipaddress.IPv4Network(f"198.18.{index}.0/24")
    assert subnet.subnet_of(DRILL_RANGE)
    return subnet


def host_addresses(index: int) -> tuple[str, str]:
    """(root side, host side) of the index-th host's veth pair: .1 and .2 of its /24."""
    subnet = host_subnet(index)
    return str(subnet.network_address + 1), str(subnet.network_address + 2)


@dataclass(frozen=True)
class HostNetwork:
    """One application host: its namespace, its veth pair and their addresses."""

    label: str  # "a", "b": in the namespace's and the host's name
    index: int
    suffix: str  # random, so two drills (or a leftover) never share a name

    @classmethod
    def new(cls, label: str, index: int) -> "HostNetwork":
        return cls(label=label, index=index, suffix=secrets.token_hex(3))

    @property
    def namespace(self) -> str:
        return f"orders-{self.label}-{self.suffix}"

    @property
    def hostname(self) -> str:
        """The host's own name (a UTS namespace per process): leases and worker names say it."""
        return f"drill-host-{self.label}-{self.suffix}"

    @property
    def root_veth(self) -> str:  # interface names are at most 15 characters
        return f"o{self.label}{self.suffix}r"

    @property
    def host_veth(self) -> str:
        return f"o{self.label}{self.suffix}h"

    @property
    def root_ip(self) -> str:
        return host_addresses(self.index)[0]

    @property
    def host_ip(self) -> str:
        return host_addresses(self.index)[1]

    def setup_commands(self) -> list[list[str]]:
        ns, root, host = self.namespace, self.root_veth, self.host_veth
        return [
            ["ip", "netns", "add", ns],
            ["ip", "link", "add", root, "type", "veth", "peer", "name", host],
            ["ip", "link", "set", host, "netns", ns],
            ["ip", "addr", "add", f"{self.root_ip}/24", "dev", root],
            ["ip", "link", "set", root, "up"],
            ["ip", "-n", ns, "addr", "add", f"{self.host_ip}/24", "dev", host],
            ["ip", "-n", ns, "link", "set", host, "up"],
            ["ip", "-n", ns, "link", "set", "lo", "up"],
            # While the link is down (the cut) its connected route is gone: without this, the
            # root namespace would send the host's traffic out of its default route, off this
            # machine. Behind the connected route (a worse metric), so it only answers the cut.
            ["ip", "route", "add", "unreachable", self.subnet, "metric", "4000"],
        ]

    @property
    def subnet(self) -> str:
        return str(host_subnet(self.index))

    def exec_prefix(self) -> list[str]:
        """Run a command inside the host: its network namespace, and a UTS namespace with the
        host's own name (`exec` all the way, so the pid started is the command's own)."""
        return [
            *("ip", "netns", "exec", self.namespace, "unshare", "--uts", "sh", "-c"),
            'hostname "$0" && exec "$@"',
            self.hostname,
        ]

    def create(self) -> "HostNetwork":
        try:
            for command in self.setup_commands():
                _run(command)
        except subprocess.CalledProcessError:
            self.destroy()
            raise
        return self

    def cut(self) -> None:
        """The network cut: the root side of the host's link goes down. The host's processes
        keep running and keep their sockets; nothing reaches them and nothing leaves."""
        _run(["ip", "link", "set", self.root_veth, "down"])

    def restore(self) -> None:
        _run(["ip", "link", "set", self.root_veth, "up"])

    def destroy(self) -> None:
        """Delete the veth pair (both ends go) and the namespace; quiet if already gone."""
        subprocess.run(["ip", "link", "del", self.root_veth], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", self.namespace], capture_output=True, check=False)
        unreachable = ["ip", "route", "del", "unreachable", self.subnet, "metric", "4000"]
        subprocess.run(unreachable, capture_output=True, check=False)


def _run(command: list[str]) -> None:
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=30)
