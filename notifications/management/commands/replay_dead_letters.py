"""replay_dead_letters: list, show, replay or discard the messages in the dead-letter queues.

It refuses to cause a second incident: --dry-run shows the plan and changes nothing, more
than a handful of messages needs --yes (or typing "yes"), --rate sets the pace, and each
replay or discard is recorded with who ran it.
"""

import getpass
import sys
import time
from datetime import datetime
from typing import Any

from amqp.exceptions import AMQPError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from infra.durations import duration_parse, is_duration
from messaging.dead_letters.reader import DeadLetter, DeadLetterReader
from messaging.relay.publisher import PublishError
from notifications.operations.replay import (
    Plan,
    Verdict,
    dead_letter_discard,
    dead_letter_plan,
    dead_letter_replay,
)

ROW = "{:36}  {:15}  {:36}  {:17}  {:>2}  {:16}  {:16}  {}"
CONFIRM_ABOVE = 5  # more messages than this need --yes or an interactive "yes"


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
        replay.add_argument("--rate", type=float, default=10.0, help="messages per second (default 10)")
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
            "--limit", type=int, default=1000, help="at most this many messages (default 1000)"
        )
        parser.add_argument("--dry-run", action="store_true", help="show what would happen, change nothing")
        parser.add_argument("--yes", action="store_true", help="do not ask before acting on many messages")
        parser.add_argument("--actor", default=None, help="who runs this, for the record (default: OS user)")

    def handle(self, *args: Any, verb: str, **options: Any) -> None:
        now = timezone.now()
        options["older_than"] = (
            _cutoff(options["older_than"], now, "--older-than") if options.get("older_than") else None
        )
        options["since"] = _since(options["since"], now) if options.get("since") else None
        try:
            reader = DeadLetterReader()
            letters = self._select(reader, options)
        except (OSError, AMQPError) as exc:
            raise CommandError(
                f"Cannot read the dead-letter queues: {exc}. Is RabbitMQ up and the topology declared "
                "(manage.py declare_topology)?"
            ) from exc
        with reader:  # whatever is not acked returns to the dead-letter queue on exit
            if verb == "list":
                self._list(letters)
            elif verb == "show":
                self._show(letters, options["event_id"])
            else:
                self._act(reader, letters, verb, options)

    def _select(self, reader: DeadLetterReader, options: dict[str, Any]) -> list[DeadLetter]:
        queues = [f"{options['queue'].removesuffix('.dlq')}.dlq"] if options.get("queue") else None
        letters = reader.fetch(queues=queues)
        older, since = options["older_than"], options["since"]
        words = (options.get("reason") or "").lower()
        selected = [
            letter
            for letter in letters
            if (not options.get("event_type") or letter.event_type == options["event_type"])
            and (not words or words in letter.reason.lower() or words in letter.error_class.lower())
            and (not options.get("only_event_id") or str(letter.event_id) == options["only_event_id"])
            and (older is None or (letter.last_at is not None and letter.last_at <= older))
            and (since is None or (letter.first_at is not None and letter.first_at >= since))
        ]
        return selected[: options["limit"]]

    def _list(self, letters: list[DeadLetter]) -> None:
        if not letters:
            self.stdout.write("No dead letters match.")
            return
        header = ("EVENT ID", "TYPE", "ORDER", "CLASS", "N", "FIRST", "LAST", "REASON")
        self.stdout.write(ROW.format(*header))
        for letter in letters:
            self.stdout.write(
                ROW.format(
                    str(letter.event_id or "-"),
                    letter.event_type or "-",
                    letter.aggregate_id or "-",
                    letter.error_class,
                    letter.count,
                    _short(letter.first_at),
                    _short(letter.last_at),
                    letter.reason[:90],
                )
            )
        self.stdout.write(f"{len(letters)} dead letter(s).")

    def _show(self, letters: list[DeadLetter], event_id: str) -> None:
        matching = [letter for letter in letters if str(letter.event_id) == event_id]
        if not matching:
            raise CommandError(f"No dead letter has the event id {event_id}.")
        for letter in matching:
            plan = dead_letter_plan(letter)
            self.stdout.write(
                f"event {letter.event_id} ({letter.event_type or 'unreadable'}) in {letter.dead_letter_queue}"
            )
            self.stdout.write(f"  order:       {letter.aggregate_id or '-'}")
            self.stdout.write(f"  class:       {letter.error_class}")
            self.stdout.write(f"  reason:      {letter.reason}")
            self.stdout.write(
                f"  dead-lettered {letter.count} time(s), first {letter.first_at}, last {letter.last_at}"
            )
            self.stdout.write(f"  envelope:    {letter.envelope}")
            self.stdout.write(f"  headers:     {letter.headers}")
            self.stdout.write(f"  a replay would: {plan.verdict}: {plan.why}")

    def _act(
        self, reader: DeadLetterReader, letters: list[DeadLetter], verb: str, options: dict[str, Any]
    ) -> None:
        if not letters:
            self.stdout.write("No dead letters match.")
            return
        include_review = options.get("include_needs_review", False)
        plans = [
            (letter, dead_letter_plan(letter, include_needs_review=include_review)) for letter in letters
        ]
        prefix = "would " if options["dry_run"] else ""
        for letter, plan in plans:
            what, why = ("discard", letter.reason) if verb == "discard" else (plan.verdict, plan.why)
            self.stdout.write(f"{prefix}{what}: {letter.event_id or '-'} {letter.event_type or '-'} ({why})")
        if options["dry_run"]:
            self.stdout.write(f"Dry run: {len(plans)} message(s) looked at, nothing changed.")
            return
        self._confirm(verb, len(plans), options["yes"])
        actor = options.get("actor") or getpass.getuser()
        pause = 1.0 / options["rate"] if verb == "replay" and options["rate"] > 0 else 0.0
        counts: dict[str, int] = {}
        for letter, plan in plans:
            result = self._act_on_one(reader, letter, plan, verb, actor, options)
            counts[result] = counts.get(result, 0) + 1
            time.sleep(pause)
        self.stdout.write("Done: " + ", ".join(f"{n} {result}" for result, n in sorted(counts.items())) + ".")

    def _act_on_one(
        self,
        reader: DeadLetterReader,
        letter: DeadLetter,
        plan: Plan,
        verb: str,
        actor: str,
        options: dict[str, Any],
    ) -> str:
        if verb == "discard":
            return dead_letter_discard(reader, letter, actor_name=actor, comment=options["comment"])
        if plan.verdict == Verdict.SKIP:
            return "left in the queue"
        try:
            return dead_letter_replay(reader, letter, plan, actor_name=actor)
        except PublishError as exc:
            raise CommandError(
                f"Stopped: the broker did not confirm the replay of {letter.event_id}: {exc}"
            ) from exc

    def _confirm(self, verb: str, count: int, yes: bool) -> None:
        if yes or count <= CONFIRM_ABOVE:
            return
        if not sys.stdin.isatty():
            raise CommandError(f"Refusing to {verb} {count} messages without --yes (try --dry-run first).")
        answer = input(f"{verb.capitalize()} {count} messages? Type yes to go on: ")
        if answer.strip().lower() != "yes":
            raise CommandError("Nothing done.")


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


def _short(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"
