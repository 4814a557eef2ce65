"""replay_dead_letters against real dead letters: list, show, dry run, replay, discard, and a
replay killed half-way. A real worker makes the dead letters and sends the replayed emails."""

import getpass
import os
import re
import signal
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from messaging.models import OutboxEvent, ProcessedEvent
from notifications.models import Notification, OperatorAction
from tests.broker import queue_ready_count
from tests.factories import OrderFactory
from tests.waiting import wait_until
from tools.drill.processes import REPO, ManagedProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
DLQ = "orders.confirmations.dlq"


def _dead_letters(mailsim, count: int, prefix: str = "dead") -> list:
    """`count` orders whose confirmation the provider rejects: failed, each in the DLQ."""
    mailsim.set_faults({"kind": "reject"})
    orders = [OrderFactory.create(customer_email=f"{prefix}{n}@example.com") for n in range(count)]
    wait_until(lambda: queue_ready_count(DLQ) == count, timeout=60, message=f"{count} dead letters")
    mailsim.set_faults()  # the cause is fixed
    return orders


def _run(*args: str) -> str:
    out = StringIO()
    call_command("replay_dead_letters", *args, stdout=out)
    return out.getvalue()


def test_list_and_show_say_what_each_dead_letter_is_and_why(mailsim, module_worker):
    [order] = _dead_letters(mailsim, 1)
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    listing = _run("list")
    assert str(event.id) in listing
    assert "order.created" in listing
    assert str(order.id) in listing
    assert "refused the email to d***@example.com" in listing  # the DLQ header is masked
    assert "1 dead letter(s)." in listing
    shown = _run("show", str(event.id))
    assert "class:       permanent" in shown
    assert "a replay would: replay: reopen the failed notification and publish again" in shown
    assert "No dead letters match." in _run("list", "--event-type", "order.cancelled")
    assert "No dead letters match." in _run("list", "--older-than", "1h")


def test_a_dry_run_changes_nothing(mailsim, module_worker):
    _dead_letters(mailsim, 3)
    before = (queue_ready_count(DLQ), _database_counts())
    output = _run("replay", "--dry-run")
    assert output.count("would replay:") == 3
    assert "Dry run: 3 message(s) looked at, nothing changed." in output
    assert (queue_ready_count(DLQ), _database_counts()) == before


def test_replay_reopens_republishes_with_the_same_event_id_and_then_removes_the_dead_letter(
    mailsim, module_worker
):
    orders = _dead_letters(mailsim, 3)
    # when
    output = _run("replay", "--yes", "--rate", "50", "--actor", "alice")
    # then
    assert "Done: 3 replayed." in output
    for order in orders:
        wait_until(
            lambda o=order: Notification.objects.filter(order=o, status="sent").exists(),
            timeout=20,
            message="sent",
        )
    assert queue_ready_count(DLQ) == 0
    assert len(mailsim.messages()) == 3
    actions = OperatorAction.objects.filter(action="replay")
    assert actions.count() == 3
    assert all(a.actor_name == "alice" and a.finished_at and "published again" in a.result for a in actions)
    events = {str(e.id) for e in OutboxEvent.objects.all()}
    assert {str(a.event_id) for a in actions} == events


def test_many_messages_need_yes_and_a_discard_needs_a_comment(mailsim, module_worker):
    _dead_letters(mailsim, 6)
    with pytest.raises(CommandError, match="Refusing to replay 6 messages without --yes"):
        _run("replay")
    with pytest.raises(CommandError, match="--comment"):
        _run("discard", "--yes")
    assert queue_ready_count(DLQ) == 6
    output = _run("discard", "--yes", "--comment", "test orders from the load test", "--actor", "bob")
    assert "Done: 6 discarded." in output
    assert queue_ready_count(DLQ) == 0
    assert (
        OperatorAction.objects.filter(
            action="discard", actor_name="bob", comment__contains="load test"
        ).count()
        == 6
    )


def test_without_actor_the_record_names_the_operating_system_user_who_ran_it(mailsim, module_worker):
    _dead_letters(mailsim, 2)
    _run("discard", "--yes", "--comment", "duplicates of a test order")
    _run("list")  # reading is not recorded; acting is
    actions = OperatorAction.objects.all()
    assert [(a.action, a.actor_name) for a in actions] == [("discard", getpass.getuser())] * 2
    assert all(a.finished_at and a.comment == "duplicates of a test order" for a in actions)


def test_a_sent_notification_is_not_sent_again_by_a_replay_of_its_dead_letter(mailsim, module_worker):
    [order] = _dead_letters(mailsim, 1)
    Notification.objects.filter(order=order).update(status="sent")  # e.g. retried from the admin meanwhile
    output = _run("replay", "--yes")
    assert "Done: 1 removed." in output
    assert queue_ready_count(DLQ) == 0
    assert mailsim.messages() == []


REPLAY_COMMAND = [sys.executable, "manage.py", "replay_dead_letters", "replay", "--yes", "--actor", "ops"]


def test_a_replay_killed_half_way_and_run_again_loses_nothing_and_doubles_nothing(
    mailsim, module_worker, service_env, tmp_path
):
    orders = _dead_letters(mailsim, 20, prefix="kill")
    env = service_env()
    # when the replay is killed (SIGKILL, no chance to clean up) after a few messages
    replay = ManagedProcess(
        "replay", [*REPLAY_COMMAND, "--rate", "8"], env=env, log_path=tmp_path / "replay.log"
    )
    replay.start(ready=r"replay: 20 message\(s\) in the dead-letter queue\(s\) at the start", timeout=30)
    wait_until(
        lambda: OperatorAction.objects.filter(action="replay").count() >= 5, timeout=30, message="5 replayed"
    )
    replay.kill()
    replayed_before_kill = OperatorAction.objects.filter(action="replay").count()
    left = queue_ready_count(DLQ)
    assert 0 < left < 20
    # and run again to the end
    second = subprocess.run(REPLAY_COMMAND, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    # then the second run took what the first left, and nothing is left. (The message the
    # kill caught in flight may have been back in the DLQ a moment after `left` was read.)
    start = re.search(r"replay: (\d+) message\(s\) in the dead-letter queue\(s\) at the start", second.stdout)
    assert start, second.stdout
    assert int(start.group(1)) in (left, left + 1)
    [done] = [line for line in second.stdout.splitlines() if line.startswith("Done: ")]
    assert sum(int(part.split()[0]) for part in done.removeprefix("Done: ").split(", ")) == int(
        start.group(1)
    )
    assert "0 message(s) now in the dead-letter queue(s)." in second.stdout
    # and every email went out exactly once
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == 20, timeout=60, message="all 20 sent"
    )
    messages = mailsim.messages()
    assert len(messages) == 20
    assert len({m["idempotency_key"] for m in messages}) == 20
    assert sorted(m["to"][0] for m in messages) == sorted(o.customer_email for o in orders)
    assert queue_ready_count(DLQ) == 0
    events = {e.id for e in OutboxEvent.objects.all()}
    assert set(ProcessedEvent.objects.values_list("event_id", flat=True)) == events  # each reached the worker
    assert ProcessedEvent.objects.count() == 20
    # and the record shows what happened, an interrupted replay included if there was one
    actions = OperatorAction.objects.filter(action="replay")
    assert {a.event_id for a in actions} == events
    assert actions.count() <= 21  # at most the one in flight at the kill was replayed twice
    assert actions.filter(finished_at__isnull=False, result__startswith="published again").count() >= 20 - 1
    assert actions.filter(finished_at__isnull=True).count() <= 1  # the one the kill cut short, if any
    assert replayed_before_kill < actions.count()


def test_a_replay_stopped_with_ctrl_c_says_what_is_left_and_how_to_go_on(
    mailsim, module_worker, service_env, tmp_path
):
    _dead_letters(mailsim, 12, prefix="int")
    env = service_env()
    # one a second: the run lasts 12 s, so Ctrl-C surely comes before its end on a busy machine
    replay = ManagedProcess(
        "replay", [*REPLAY_COMMAND, "--rate", "1"], env=env, log_path=tmp_path / "replay.log"
    )
    replay.start(ready=r"at the start", timeout=30)
    wait_until(
        lambda: OperatorAction.objects.filter(action="replay").count() >= 2, timeout=30, message="2 replayed"
    )
    # when the person presses Ctrl-C
    os.kill(replay.pid, signal.SIGINT)
    assert replay.process.wait(timeout=20) == 1
    # then it says nothing was lost and how to continue, and it is so
    assert "Interrupted (" in replay.log_text()
    assert "run the same command again to continue" in replay.log_text()
    assert 0 < queue_ready_count(DLQ) < 12
    second = subprocess.run(REPLAY_COMMAND, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert queue_ready_count(DLQ) == 0
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == 12, timeout=60, message="all 12 sent"
    )
    assert len(mailsim.messages()) == 12


def test_messages_that_fail_again_during_a_replay_wait_for_the_next_run(mailsim, module_worker):
    _dead_letters(mailsim, 4, prefix="again")
    mailsim.set_faults({"kind": "reject"})  # the cause is not fixed after all
    # when
    output = _run("replay", "--yes", "--rate", "2")
    # then each was replayed once, though they came back to the queue while the run went on
    assert "Done: 4 replayed." in output
    assert OperatorAction.objects.filter(action="replay").count() == 4
    wait_until(lambda: queue_ready_count(DLQ) == 4, timeout=30, message="dead-lettered again")
    [now_in_queue] = [line for line in output.splitlines() if "now in the dead-letter queue" in line]
    assert int(now_in_queue.split()[0]) >= 1  # at least one was back before the run ended


def _database_counts() -> dict[str, object]:
    return {
        "actions": OperatorAction.objects.count(),
        "statuses": tuple(Notification.objects.order_by("pk").values_list("status", flat=True)),
        "processed": ProcessedEvent.objects.count(),
    }
