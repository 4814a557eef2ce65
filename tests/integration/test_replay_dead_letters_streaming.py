"""replay_dead_letters streams: the reader holds one message at a time, looks at each message
present at the start once, has no cap, and a bounded run says how to continue. No worker
runs here, so what a replay publishes stays in the work queue for the test to read."""

import contextlib
import os
import pty
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notifications.models import OperatorAction
from operations.dead_letters.reader import DeadLetterReader
from tests.broker import queue_peek, queue_ready_count
from tests.factories import NotificationFactory, UnpublishedOrderFactory
from tests.integration.dead_letter_support import DLQ, WORK_QUEUE, dead_letter_of, dlq_settles_at
from tools.drill.processes import REPO

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _letters(count: int, prefix: str = "s", **state: bool) -> list[str]:
    """`count` dead letters of confirmations (failed by default) whose orders were never
    published: nothing else is in the queues."""
    state = state or {"failed": True}
    return [
        dead_letter_of(
            NotificationFactory.create(
                order=UnpublishedOrderFactory.create(customer_email=f"{prefix}{n}@example.com"), **state
            ).order
        )
        for n in range(count)
    ]


def _run(*args: str) -> str:
    out = StringIO()
    call_command("replay_dead_letters", *args, stdout=out)
    return out.getvalue()


def test_the_reader_takes_one_message_at_a_time_and_only_those_present_at_the_start():
    event_ids = _letters(5)
    with DeadLetterReader() as reader:
        stream = reader.stream(queues=[DLQ])
        assert stream.present == {DLQ: 5}
        first = next(iter(stream))
        assert queue_ready_count(DLQ) == 4  # one taken from the broker, no more
        late = _letters(1, prefix="late")  # dead-lettered again while the run goes on
        rest = list(stream)
        assert [str(letter.event_id) for letter in [first, *rest]] == event_ids
        assert queue_ready_count(DLQ) == 1  # the late one: left for the next run
    assert late[0] not in event_ids
    dlq_settles_at(6)  # closing put back every one it held


def test_a_replay_without_limit_takes_every_message_and_leaves_those_for_a_person():
    event_ids = _letters(30)
    [review] = _letters(1, prefix="review", needs_review=True)
    # when
    output = _run("replay", "--yes", "--rate", "0")
    # then every replayable one went back to its work queue, once
    assert "replay: 31 message(s) in the dead-letter queue(s) at the start" in output
    assert "Done: 30 replayed, 1 left in the queue." in output
    assert "1 left in the queue: needs review: check at the provider" in output
    assert "1 message(s) now in the dead-letter queue(s)." in output
    published = [m["headers"]["id"] for m in queue_peek(WORK_QUEUE)]
    assert sorted(published) == sorted(event_ids)
    with DeadLetterReader() as reader:
        assert [str(letter.event_id) for letter in reader.fetch()] == [review]
    assert OperatorAction.objects.filter(action="replay").count() == 30


def test_a_bounded_run_says_so_and_the_same_command_continues_with_the_rest():
    _letters(3)
    first = _run("replay", "--yes", "--rate", "0", "--limit", "2")
    assert "Done: 2 replayed." in first
    assert "1 message(s) now in the dead-letter queue(s)." in first
    assert "Stopped at --limit 2: run the same command again to continue." in first
    second = _run("replay", "--yes", "--rate", "0")
    assert "Done: 1 replayed." in second
    assert "0 message(s) now in the dead-letter queue(s)." in second
    assert "Stopped at" not in second
    assert len(queue_peek(WORK_QUEUE)) == 3


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--limit", "0"], "--limit takes a positive number"),
        (["--queue", "orders.nowhere"], "No work queue is called 'orders.nowhere'"),
        (["--older-than", "soon"], "--older-than takes a duration like 30m"),
        (["--rate", "-1"], "--rate takes messages per second"),
    ],
)
def test_bad_input_is_refused_plainly_and_changes_nothing(args, error):
    _letters(1)
    with pytest.raises(CommandError, match=error):
        _run("replay", "--yes", *args)
    dlq_settles_at(1)
    assert OperatorAction.objects.count() == 0


def _run_in_a_process(service_env, *, terminal: bool) -> str:
    """The command as a person runs it: on a terminal (a pseudo-terminal), or into a pipe."""
    command = [sys.executable, "manage.py", "replay_dead_letters", "replay", "--yes", "--rate", "20"]
    if not terminal:
        done = subprocess.run(
            command, cwd=REPO, env=service_env(), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout
    leader, follower = pty.openpty()
    env = {**service_env(), "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=follower, stderr=follower)
    os.close(follower)
    output = b""
    with contextlib.suppress(OSError):  # EIO once the process closed its end
        while chunk := os.read(leader, 4096):
            output += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0, output.decode(errors="replace")
    return output.decode(errors="replace")


def test_a_terminal_gets_a_progress_bar_and_a_log_gets_plain_lines(service_env):
    _letters(3, prefix="tty")
    on_terminal = _run_in_a_process(service_env, terminal=True)
    assert "━" in on_terminal  # rich's bar
    assert "3/3" in on_terminal
    assert "Done: 3 replayed." in on_terminal
    _letters(2, prefix="pipe")
    in_a_log = _run_in_a_process(service_env, terminal=False)
    assert "\x1b[" not in in_a_log  # no terminal codes in a log
    assert "━" not in in_a_log
    assert "replay: 2 message(s) in the dead-letter queue(s) at the start" in in_a_log
    assert "Done: 2 replayed." in in_a_log
