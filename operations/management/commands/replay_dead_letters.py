"""replay_dead_letters: list, show, replay or discard the messages in the dead-letter queues.

It refuses to cause a second incident: --dry-run shows the plan and changes nothing, more
than a handful of messages needs --yes (or typing "yes"), --rate sets the pace, and each
replay or discard is recorded with who ran it.

It streams (operations/dead_letters/batch.py): no cap on the queue's size, each
message present at the start looked at once, and a run stopped at any point (Ctrl-C, kill)
loses nothing: running the same command again continues with what is left.
"""

import getpass
import math
import sys
from datetime import datetime
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from infra.durations import duration_parse, is_duration
from infra.progress import PlainProgress, ProgressReport, progress_report
from operations.dead_letters.batch import (
    BROKER_ERRORS,
    BatchProgress,
    BatchRequest,
    DeadLetterFilter,
    Step,
    UnknownQueue,
    Verb,
    dead_letters_count,
    dead_letters_matching,
    dead_letters_process,
)
from operations.dead_letters.reader import DeadLetterReader, UnreadableDeadLetter
from operations.dead_letters.text import LIST_HEADER, dead_letter_details, dead_letter_line

CONFIRM_ABOVE = 5  # more messages than this need --yes or an interactive "yes"
DEFAULT_RATE = 10.0  # messages replayed per second: a provider sees no burst


class Command(BaseCommand):
    help = "List, show, replay or discard dead-lettered messages (docs/operations.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="verb", required=True, parser_class=type(parser))
        sub.add_parser("list", help="list the dead letters")
        show = sub.add_parser("show", help="everything about one dead letter")
        show.add_argument("event_id")
        replay = sub.add_parser("replay", help="publish dead letters again (same event id)")
        replay.add_argument(
            "--include-needs-review", action="store_true", help="also emails that may have gone out"
        )
        replay.add_argument(
            "--rate", type=float, default=DEFAULT_RATE, help=f"messages per second (default {DEFAULT_RATE:g})"
        )
        discard = sub.add_parser("discard", help="remove dead letters for good")
        discard.add_argument("--comment", required=True, help="why they are discarded (recorded)")
        for verb_parser in sub.choices.values():
            self._add_filters(verb_parser)

    def _add_filters(self, parser: CommandParser) -> None:
        parser.add_argument("--event-type", help="e.g. order.created")
        parser.add_argument(
            "--reason", help="words in the reason or the class, e.g. 'rejected' or 'malformed'"
        )
        parser.add_argument("--older-than", help="last dead-lettered before this long ago: 30m, 2h, 1d")
        parser.add_argument("--since", help="first dead-lettered after this time (ISO 8601) or this long ago")
        parser.add_argument("--event-id", dest="only_event_id", help="just this event")
        parser.add_argument("--queue", help="a work queue, e.g. orders.confirmations (default: all)")
        parser.add_argument(
            "--limit", type=int, default=None, help="at most this many messages (default: all)"
        )
        parser.add_argument("--dry-run", action="store_true", help="show what would happen, change nothing")
        parser.add_argument("--yes", action="store_true", help="do not ask before acting on many messages")
        parser.add_argument("--actor", default=None, help="who runs this, for the record (default: OS user)")

    def handle(self, *args: Any, verb: str, **options: Any) -> None:
        self.verbosity = int(options.get("verbosity", 1))
        flt = _filter(options)
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit takes a positive number of messages (leave it out for all).")
        if options.get("rate") is not None and options["rate"] < 0:
            raise CommandError("--rate takes messages per second, 0 for as fast as the broker confirms.")
        try:
            if verb in ("list", "show"):
                with DeadLetterReader() as reader:  # nothing is acked: all go back on exit
                    if verb == "list":
                        self._list(reader, flt, options["limit"])
                    else:
                        self._show(reader, flt)
            else:
                self._act(Verb(verb), flt, options)
        except (UnknownQueue, UnreadableDeadLetter) as exc:
            raise CommandError(str(exc)) from exc
        except BROKER_ERRORS as exc:
            raise CommandError(
                f"Cannot read the dead-letter queues: {exc}. Is RabbitMQ up and the topology declared "
                "(manage.py declare_topology)? Nothing was lost: what was not done is still there."
            ) from exc

    def _list(self, reader: DeadLetterReader, flt: DeadLetterFilter, limit: int | None) -> None:
        count = 0
        for letter in dead_letters_matching(reader, flt):
            if count == 0:
                self.stdout.write(LIST_HEADER)
            self.stdout.write(dead_letter_line(letter))
            count += 1
            if count == limit:
                break
        self.stdout.write(f"{count} dead letter(s)." if count else "No dead letters match.")

    def _show(self, reader: DeadLetterReader, flt: DeadLetterFilter) -> None:
        matching = list(dead_letters_matching(reader, flt))
        if not matching:
            raise CommandError(f"No dead letter has the event id {next(iter(flt.event_ids))}.")
        for letter in matching:
            for line in dead_letter_details(letter):
                self.stdout.write(line)

    def _act(self, verb: Verb, flt: DeadLetterFilter, options: dict[str, Any]) -> None:
        rate = options.get("rate") or 0.0
        request = BatchRequest(
            verb=verb,
            actor_name=options.get("actor") or getpass.getuser(),
            comment=options.get("comment") or "",
            include_needs_review=options.get("include_needs_review", False),
            limit=options["limit"],
            pause=1.0 / rate if rate > 0 else 0.0,
            dry_run=options["dry_run"],
        )
        if not options["dry_run"] and not options["yes"]:
            self._confirm(verb, dead_letters_count(flt, options["limit"]))
        with DeadLetterReader() as reader:  # whatever is not acked returns to its queue on exit
            progress = self._run(reader, flt, request)
        self._summary(progress, request)

    def _run(self, reader: DeadLetterReader, flt: DeadLetterFilter, request: BatchRequest) -> BatchProgress:
        bar: ProgressReport | None = None
        done_so_far = "nothing done"

        def on_step(progress: BatchProgress, step: Step | None) -> None:
            nonlocal bar, done_so_far
            if bar is None:
                bar = self._start(progress, request)
            done_so_far = progress.summary()
            if step is not None and (request.dry_run or self.verbosity > 1):
                why = step.plan.why if step.plan else step.letter.reason
                event = f"{step.letter.event_id or '-'} {step.letter.event_type or '-'}"
                bar.note(f"{step.result}: {event} ({why})")
            bar.update(progress.looked_at, done_so_far)

        try:
            return dead_letters_process(reader, flt, request, on_step)
        except KeyboardInterrupt:
            raise CommandError(
                f"Interrupted ({done_so_far}). Nothing was lost: every message not yet done is still in "
                "its dead-letter queue; run the same command again to continue."
            ) from None
        finally:
            if bar is not None:
                bar.close()

    def _start(self, progress: BatchProgress, request: BatchRequest) -> ProgressReport:
        out = cast(TextIO, self.stdout._out)
        if request.dry_run:  # its lines are its output: no bar, no progress lines among them
            return PlainProgress(self.stdout.write, label="", total=progress.present, every=math.inf)
        pace = f" at most {1 / request.pause:g} a second" if request.pause else ""
        self.stdout.write(
            f"{request.verb}: {progress.present} message(s) in the dead-letter queue(s) at the start; "
            f"looking at each once{pace}."
        )
        self.stdout.flush()
        return progress_report(out, label=str(request.verb), total=progress.present)

    def _summary(self, progress: BatchProgress, request: BatchRequest) -> None:
        if progress.matched == 0:
            self.stdout.write("No dead letters match.")
            return
        if request.dry_run:
            self.stdout.write(f"Dry run: {progress.matched} message(s) looked at, nothing changed.")
            return
        self.stdout.write(f"Done: {progress.summary()}.")
        for why, count in progress.left_why.most_common():
            self.stdout.write(f"  {count} left in the queue: {why}")
        if progress.left is not None:
            self.stdout.write(f"{progress.left} message(s) now in the dead-letter queue(s).")
        if progress.stopped:
            raise CommandError(f"Stopped: {progress.stopped}. Run the same command again to continue.")
        if request.limit is not None and progress.matched >= request.limit:
            self.stdout.write(f"Stopped at --limit {request.limit}: run the same command again to continue.")

    def _confirm(self, verb: str, count: int) -> None:
        if count <= CONFIRM_ABOVE:
            return
        if not sys.stdin.isatty():
            raise CommandError(f"Refusing to {verb} {count} messages without --yes (try --dry-run first).")
        answer = input(f"{verb.capitalize()} {count} messages? Type yes to go on: ")
        if answer.strip().lower() != "yes":
            raise CommandError("Nothing done.")


def _filter(options: dict[str, Any]) -> DeadLetterFilter:
    now = timezone.now()
    only = options.get("only_event_id") or options.get("event_id")
    return DeadLetterFilter(
        queue=options.get("queue") or "",
        event_type=options.get("event_type") or "",
        words=options.get("reason") or "",
        older_than=_cutoff(options["older_than"], now, "--older-than") if options.get("older_than") else None,
        since=_since(options["since"], now) if options.get("since") else None,
        event_ids=frozenset([only]) if only else frozenset(),
    )


def _cutoff(value: str, now: datetime, flag: str) -> datetime:
    try:
        return now - duration_parse(value)
    except ValueError as exc:
        raise CommandError(f"{flag} takes {exc}.") from exc


def _since(value: str, now: datetime) -> datetime:
    if is_duration(value):
        return _cutoff(value, now, "--since")
    moment = parse_datetime(value)
    if moment is None:
        raise CommandError(f"--since takes an ISO 8601 time or a duration like 2h, not {value!r}.")
    return moment if moment.tzinfo else timezone.make_aware(moment)
