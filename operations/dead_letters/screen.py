"""What the admin's "Dead letters" screen shows: one page of the messages matching a filter,
each with what a replay would do, and the preview a person confirms before acting.

Reading holds nothing: every function here closes its reader, which puts back every message
it read, before it returns. The same services as `replay_dead_letters` decide and act
(replay.py, batch.py). A web request must end within gunicorn's timeout, so the
screen looks at the first SCAN_LIMIT messages and acts on at most ACT_LIMIT per click, and
says so when there are more; the command has no such bounds.
"""

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.contrib.auth.models import User

from messaging.registry import event_types
from notifications.models import Notification
from operations.dead_letters.batch import (
    BROKER_ERRORS,
    BatchProgress,
    BatchRequest,
    DeadLetterFilter,
    Verb,
    dead_letters_process,
)
from operations.dead_letters.reader import DeadLetter, DeadLetterReader, dead_letter_queue_depths
from operations.dead_letters.replay import Plan, Verdict, dead_letter_plan
from orders.selectors import subject_order_id

PER_PAGE = 50
SHOWN_IN_PREVIEW = 20
SCAN_LIMIT = 5000  # messages read per page, preview or action: a few seconds
ACT_LIMIT = 500  # messages replayed or discarded per click


class BrokerUnreachable(Exception):
    """RabbitMQ did not answer; the words say so plainly, for the page."""


@dataclass(frozen=True)
class Row:
    letter: DeadLetter
    plan: Plan
    order_id: str  # the order's id when the order exists, else ""

    @property
    def notification_id(self) -> int | None:
        return self.plan.notification.pk if self.plan.notification else None


@dataclass
class Scan:
    """How much of the queues a page or a preview read: all, or the first SCAN_LIMIT."""

    present: int = 0  # messages in the queues read, when reading started
    looked_at: int = 0

    @property
    def cut_short(self) -> bool:
        return self.looked_at < self.present


@dataclass
class DeadLetterPage:
    rows: list[Row]
    matching: int  # messages matching the filter, all pages
    depths: dict[str, int]  # messages in each dead-letter queue
    page: int
    pages: int
    scan: Scan


@dataclass
class ActionPreview:
    verb: Verb
    count: int  # messages the action would take
    shown: list[Row]  # the first few, as on the list
    verdicts: Counter[str] = field(default_factory=Counter)  # a replay's plan, word by word
    needs_review: int = 0  # replayed only if the person ticks the box
    scan: Scan = field(default_factory=Scan)

    @property
    def verdict_counts(self) -> list[tuple[str, int]]:
        """The verdicts, most frequent first (a template cannot ask a Counter for its items)."""
        return self.verdicts.most_common()


def dead_letter_page(flt: DeadLetterFilter, *, page: int, per_page: int = PER_PAGE) -> DeadLetterPage:
    first = (page - 1) * per_page
    on_page: list[DeadLetter] = []
    matching, scan = 0, Scan()
    try:
        depths = dead_letter_queue_depths()
        with DeadLetterReader() as reader:
            for letter in _matching(reader, flt, scan):
                if first <= matching < first + per_page:
                    on_page.append(letter)
                matching += 1
    except BROKER_ERRORS as exc:
        raise BrokerUnreachable(unreachable_words(exc)) from exc
    rows = [_row(letter, dead_letter_plan(letter)) for letter in on_page]
    pages = max(1, math.ceil(matching / per_page))
    return DeadLetterPage(rows=rows, matching=matching, depths=depths, page=page, pages=pages, scan=scan)


def dead_letter_preview(flt: DeadLetterFilter, verb: Verb) -> ActionPreview:
    """What replaying or discarding the matching messages would do, acting on none."""
    preview = ActionPreview(verb=verb, count=0, shown=[])
    try:
        with DeadLetterReader() as reader:
            for letter in _matching(reader, flt, preview.scan):
                _preview_add(preview, letter)
                if preview.count == ACT_LIMIT:
                    break
    except BROKER_ERRORS as exc:
        raise BrokerUnreachable(unreachable_words(exc)) from exc
    return preview


def dead_letters_act(
    flt: DeadLetterFilter, verb: Verb, *, user: User, comment: str, include_needs_review: bool
) -> tuple[BatchProgress, list[str]]:
    """Replay or discard, recorded under `user`; what was done, and warnings in words."""
    request = BatchRequest(
        verb=verb,
        actor_name=user.get_username(),
        actor=user,
        comment=comment,
        include_needs_review=include_needs_review,
        limit=ACT_LIMIT,
        scan_limit=SCAN_LIMIT,
    )
    try:
        with DeadLetterReader() as reader:  # what is not acked goes back when it closes
            progress = dead_letters_process(reader, flt, request)
    except BROKER_ERRORS as exc:
        raise BrokerUnreachable(unreachable_words(exc)) from exc
    warnings = [f"{count} left in the queue: {why}" for why, count in progress.left_why.most_common()]
    if progress.matched >= ACT_LIMIT or SCAN_LIMIT == progress.looked_at < progress.present:
        warnings.append(
            f"Stopped after {progress.matched} message(s) of the {progress.present} in the queue(s), "
            "to keep the page quick: more may match. Confirm again for the next ones, or ask for "
            "`replay_dead_letters` on the command line (docs/operations.md)."
        )
    if progress.stopped:
        warnings.append(f"Stopped: {progress.stopped}. The rest is still in its queue.")
    return progress, warnings


def _matching(reader: DeadLetterReader, flt: DeadLetterFilter, scan: Scan) -> Iterator[DeadLetter]:
    stream = reader.stream(queues=flt.queues())
    scan.present = stream.total
    for letter in itertools.islice(stream, SCAN_LIMIT):
        scan.looked_at += 1
        if flt.matches(letter):
            yield letter


def _preview_add(preview: ActionPreview, letter: DeadLetter) -> None:
    plan = dead_letter_plan(letter)
    preview.count += 1
    if len(preview.shown) < SHOWN_IN_PREVIEW:
        preview.shown.append(_row(letter, plan))
    if preview.verb != Verb.REPLAY:
        return
    if plan.notification is not None and plan.notification.status == Notification.Status.NEEDS_REVIEW:
        preview.needs_review += 1  # left in the queue, unless the person ticks the box
    word = {Verdict.REPLAY: "replay", Verdict.DONE: "remove (already done)"}.get(plan.verdict)
    preview.verdicts[word or f"leave in the queue: {plan.why}"] += 1


def _row(letter: DeadLetter, plan: Plan) -> Row:
    return Row(letter=letter, plan=plan, order_id=_existing_order_id(letter, plan))


def _existing_order_id(letter: DeadLetter, plan: Plan) -> str:
    if plan.notification is not None:
        return str(plan.notification.order_id)
    event_type = event_types().get(letter.event_type)
    order_id = subject_order_id(event_type.aggregate, letter.aggregate_id) if event_type else None
    return str(order_id) if order_id else ""


def unreachable_words(exc: Exception) -> str:
    """Why the dead letters cannot be shown, for a person: nothing is lost."""
    return (
        f"RabbitMQ cannot be reached, so the dead letters cannot be shown or changed ({exc}). "
        "Nothing is lost: they stay in their queues. Try again when the broker is back."
    )
