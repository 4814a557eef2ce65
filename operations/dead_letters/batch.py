"""Going through the dead letters that match a filter, once each: what both
`replay_dead_letters` and the admin's "Dead letters" screen do with many messages.

The reader streams (reader.py): one message in memory at a time, each
message present at the start looked at once. Each one is replayed or discarded by the
services of replay.py, which ack only after a confirmed republish, so stopping at any point
(Ctrl-C, a kill, a broker that stops confirming) loses nothing: what was not done is still in
its dead-letter queue, and the same request run again continues with it.
"""

import contextlib
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from amqp.exceptions import AMQPError
from django.contrib.auth.models import User
from kombu.exceptions import OperationalError

from messaging.broker.topology import dead_letter_queue_name, dead_letter_queues
from messaging.relay.publisher import PublishError
from operations.dead_letters.reader import DeadLetter, DeadLetterReader
from operations.dead_letters.replay import (
    Plan,
    Verdict,
    dead_letter_discard,
    dead_letter_plan,
    dead_letter_replay,
)
from operations.review.services import ReviewRefused

LEFT = "left in the queue"
ACKED = ("replayed", "removed", "discarded")  # the results of replay.py that ack the message
MAX_REASONS = 20  # distinct reasons for leaving a message that a summary lists
# The broker refused the connection, closed the channel, or kombu gave up connecting.
BROKER_ERRORS = (OSError, AMQPError, OperationalError)


class UnknownQueue(ValueError):
    """A queue filter that names none of our work queues."""


class Verb(StrEnum):
    REPLAY = "replay"
    DISCARD = "discard"


@dataclass(frozen=True)
class DeadLetterFilter:
    queue: str = ""  # a work queue, with or without its ".dlq"; "" for all
    event_type: str = ""
    error_class: str = ""
    words: str = ""  # in the reason or the class, any case
    older_than: datetime | None = None  # last dead-lettered before this
    since: datetime | None = None  # first dead-lettered after this
    event_ids: frozenset[str] = frozenset()  # just these events; empty for any

    def queues(self) -> list[str] | None:
        """The dead-letter queues to read (None: all); UnknownQueue for a name of none."""
        if not self.queue:
            return None
        name = dead_letter_queue_name(self.queue.removesuffix(".dlq"))
        known = [queue.name for queue in dead_letter_queues()]
        if name not in known:
            raise UnknownQueue(f"No work queue is called {self.queue!r}; the dead-letter queues: {known}.")
        return [name]

    def matches(self, letter: DeadLetter) -> bool:
        words = self.words.lower()
        return (
            (not self.event_type or letter.event_type == self.event_type)
            and (not self.error_class or letter.error_class == self.error_class)
            and (not words or words in letter.reason.lower() or words in letter.error_class.lower())
            and (not self.event_ids or str(letter.event_id) in self.event_ids)
            and (
                self.older_than is None or (letter.last_at is not None and letter.last_at <= self.older_than)
            )
            and (self.since is None or (letter.first_at is not None and letter.first_at >= self.since))
        )


@dataclass(frozen=True)
class BatchRequest:
    verb: Verb
    actor_name: str
    actor: User | None = None
    comment: str = ""  # why, for a discard (required there)
    include_needs_review: bool = False  # replay emails that may already have gone out
    limit: int | None = None  # act on at most this many matching messages
    scan_limit: int | None = None  # look at at most this many messages (None: all present)
    pause: float = 0.0  # seconds between two replays
    dry_run: bool = False


@dataclass
class BatchProgress:
    present: int  # messages in the queues read when the run started: all it will look at
    looked_at: int = 0
    matched: int = 0
    results: Counter[str] = field(default_factory=Counter)  # "replayed", "removed", LEFT, ...
    left_why: Counter[str] = field(default_factory=Counter)  # why each one was left, in words
    stopped: str = ""  # why the run stopped before the end, if it did
    acked: int = 0  # messages that left their queue (replayed, removed, discarded)
    # Messages in the queues read when the run ended, counted while it still held its own:
    # after a close, RabbitMQ puts held messages back a moment later, and a count would miss them.
    left: int | None = None

    def leave(self, why: str) -> None:
        # Some reasons name an order: bounded, so memory does not grow with the queue.
        known = why in self.left_why or len(self.left_why) < MAX_REASONS
        self.left_why[why if known else "other reasons"] += 1

    def summary(self) -> str:
        """E.g. "3 replayed, 1 left in the queue": what was done first, what was not last."""
        order = {result: rank for rank, result in enumerate(("replayed", "removed", "discarded", LEFT))}
        results = sorted(self.results.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
        return ", ".join(f"{n} {result}" for result, n in results) or "nothing done"


@dataclass(frozen=True)
class Step:
    letter: DeadLetter
    plan: Plan | None  # None for a discard
    result: str


# Step None: at the start, and for each message looked at that does not match.
StepCallback = Callable[[BatchProgress, Step | None], None]


def dead_letters_matching(reader: DeadLetterReader, flt: DeadLetterFilter) -> Iterator[DeadLetter]:
    return (letter for letter in reader.stream(queues=flt.queues()) if flt.matches(letter))


def dead_letters_count(flt: DeadLetterFilter, limit: int | None = None) -> int:
    """How many a run would take (at most `limit`): one pass on its own reader, acking nothing."""
    count = 0
    with DeadLetterReader() as reader:
        for _ in dead_letters_matching(reader, flt):
            count += 1
            if count == limit:
                break
    return count


def dead_letters_process(
    reader: DeadLetterReader,
    flt: DeadLetterFilter,
    request: BatchRequest,
    on_step: StepCallback | None = None,
) -> BatchProgress:
    """Replay or discard each matching message once; errors other than an unconfirmed
    publish (the broker or the database going away) propagate, losing nothing either."""
    stream = reader.stream(queues=flt.queues())
    progress = BatchProgress(present=stream.total)
    _notify(on_step, progress, None)
    for letter in itertools.islice(stream, request.scan_limit):
        progress.looked_at += 1
        if not flt.matches(letter):
            _notify(on_step, progress, None)
            continue
        progress.matched += 1
        try:
            step = _one(reader, letter, request)
        except PublishError as exc:
            progress.stopped = f"the broker did not confirm the replay of {letter.event_id}: {exc}"
            break
        progress.results[step.result] += 1
        progress.acked += step.result in ACKED
        if step.result == LEFT and step.plan is not None:
            progress.leave(step.plan.why)
        _notify(on_step, progress, step)
        if request.limit is not None and progress.matched >= request.limit:
            break
        if step.result == "replayed" and request.pause:
            time.sleep(request.pause)
    with contextlib.suppress(*BROKER_ERRORS):  # the summary then says less, nothing else changes
        progress.left = sum(reader.ready_counts(flt.queues()).values()) + progress.looked_at - progress.acked
    return progress


def _one(reader: DeadLetterReader, letter: DeadLetter, request: BatchRequest) -> Step:
    if request.verb == Verb.DISCARD:
        if request.dry_run:
            return Step(letter, None, "would discard")
        result = dead_letter_discard(
            reader, letter, actor_name=request.actor_name, actor=request.actor, comment=request.comment
        )
        return Step(letter, None, result)
    plan = dead_letter_plan(letter, include_needs_review=request.include_needs_review)
    if request.dry_run:
        return Step(letter, plan, f"would {plan.verdict}")
    if plan.verdict == Verdict.SKIP:
        return Step(letter, plan, LEFT)
    try:
        result = dead_letter_replay(reader, letter, plan, actor_name=request.actor_name, actor=request.actor)
    except ReviewRefused as exc:  # the notification changed since the plan was made
        return Step(letter, Plan(Verdict.SKIP, str(exc), plan.notification), LEFT)
    return Step(letter, plan, result)


def _notify(on_step: StepCallback | None, progress: BatchProgress, step: Step | None) -> None:
    if on_step is not None:
        on_step(progress, step)
