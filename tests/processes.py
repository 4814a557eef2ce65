"""The tests use the drill harness's process handling (drill/processes.py)."""

from drill.processes import REPO, ManagedProcess

__all__ = ["REPO", "ManagedProcess"]
