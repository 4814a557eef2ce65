"""tools/drill/processes.py's ManagedProcess, with real child processes."""

import os
import sys

import pytest

from tools.drill.processes import ManagedProcess


def test_a_process_that_never_says_ready_is_stopped_not_left_running(tmp_path):
    # given: a child that keeps running and never logs the ready line (as a worker whose
    # broker does not answer keeps retrying)
    never_ready = ManagedProcess(
        "never-ready",
        [sys.executable, "-c", "import time; print('trying', flush=True); time.sleep(120)"],
        env=dict(os.environ),
        log_path=tmp_path / "never-ready.log",
    )
    # when
    with pytest.raises(TimeoutError, match="did not log"):
        never_ready.start(ready=r" ready\.", timeout=1.5)
    # then: it is gone, with its process group
    assert never_ready.process.poll() is not None, "the child outlived its failed start"
    with pytest.raises(ProcessLookupError):
        os.killpg(never_ready.pid, 0)


def test_a_process_that_says_ready_is_left_running(tmp_path):
    ready = ManagedProcess(
        "ready",
        [sys.executable, "-c", "import time; print('x ready.', flush=True); time.sleep(120)"],
        env=dict(os.environ),
        log_path=tmp_path / "ready.log",
    )
    try:
        ready.start(ready=r" ready\.", timeout=30)
        assert ready.process.poll() is None
    finally:
        ready.stop()
    assert ready.process.poll() is not None
