"""A RabbitMQ cluster of the drill's own: three (or N) PrivateRabbit nodes on this machine,
each with its own node name, ports and data directory, joined with `rabbitmqctl join_cluster`.

Clients get every node in one broker URL, separated by `;` (kombu's and Celery's failover
list). A node is killed hard (SIGKILL of its process group) and started again on its data
directory; it rejoins the cluster by itself and its quorum queue replicas catch up.
"""

import json
import subprocess
import time

from tools.drill.broker_node import PrivateRabbit

LEADER_POLL_SECONDS = 0.2  # how often a surviving node is asked for the queue's leader


class PrivateCluster:
    def __init__(self, size: int = 3):
        if size < 2:
            raise ValueError("a cluster has at least two nodes (one node is a PrivateRabbit)")
        self.nodes = [PrivateRabbit(prefix=f"drill{number}") for number in range(size)]

    @property
    def url(self) -> str:
        return ";".join(node.url for node in self.nodes)

    def start(self, timeout: float = 90.0) -> "PrivateCluster":
        first, *others = self.nodes
        first.start(timeout)
        for node in others:
            node.start(timeout)
            node.ctl("stop_app")
            node.ctl("join_cluster", first.name)
            node.ctl("start_app")
        running = self.running_nodes()
        if sorted(running) != sorted(node.name for node in self.nodes):
            raise RuntimeError(f"the cluster did not form: running nodes {running}")
        return self

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()

    def node(self, name: str) -> PrivateRabbit:
        return next(node for node in self.nodes if node.name == name)

    def live_node(self, *, other_than: str | None = None) -> PrivateRabbit:
        return next(node for node in self.nodes if node.running and node.name != other_than)

    def running_nodes(self) -> list[str]:
        status = json.loads(self.live_node().ctl("cluster_status", "--formatter", "json"))
        return status["running_nodes"]

    def queue_leader(self, queue: str, *, ask: PrivateRabbit | None = None) -> str | None:
        """The node that leads a quorum queue, as a running node of the cluster reports it."""
        node = ask or self.live_node()
        rows = json.loads(node.ctl("list_queues", "name", "leader", "--formatter", "json", timeout=20))
        return next((row["leader"] for row in rows if row["name"] == queue), None)

    def queue_members(self, queue: str) -> list[str]:
        rows = json.loads(
            self.live_node().ctl("list_queues", "name", "members", "--formatter", "json", timeout=20)
        )
        return next((row["members"] for row in rows if row["name"] == queue), [])

    def new_leader_after_kill(self, queue: str, killed: str, *, timeout: float = 60.0) -> str:
        """Wait until a surviving node reports a leader of `queue` other than the killed node."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                leader = self.queue_leader(queue, ask=self.live_node(other_than=killed))
            except (subprocess.SubprocessError, json.JSONDecodeError):
                leader = None
            if leader and leader != killed:
                return leader
            if time.monotonic() > deadline:
                raise TimeoutError(f"no new leader of {queue} within {timeout:.0f} s after {killed} died")
            time.sleep(LEADER_POLL_SECONDS)
