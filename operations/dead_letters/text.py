"""Dead letters in plain text, for `replay_dead_letters list` and `show`."""

from datetime import datetime

from operations.dead_letters.reader import DeadLetter
from operations.dead_letters.replay import dead_letter_plan

ROW = "{:36}  {:15}  {:36}  {:17}  {:>2}  {:16}  {:16}  {}"
LIST_HEADER = ROW.format("EVENT ID", "TYPE", "ORDER", "CLASS", "N", "FIRST", "LAST", "REASON")


def dead_letter_line(letter: DeadLetter) -> str:
    return ROW.format(
        str(letter.event_id or "-"),
        letter.event_type or "-",
        letter.aggregate_id or "-",
        letter.error_class,
        letter.count,
        _short(letter.first_at),
        _short(letter.last_at),
        letter.reason[:90],
    )


def dead_letter_details(letter: DeadLetter) -> list[str]:
    plan = dead_letter_plan(letter)
    return [
        f"event {letter.event_id} ({letter.event_type or 'unreadable'}) in {letter.dead_letter_queue}",
        f"  order:       {letter.aggregate_id or '-'}",
        f"  class:       {letter.error_class}",
        f"  reason:      {letter.reason}",
        f"  dead-lettered {letter.count} time(s), first {letter.first_at}, last {letter.last_at}",
        f"  envelope:    {letter.envelope}",
        f"  headers:     {letter.headers}",
        f"  a replay would: {plan.verdict}: {plan.why}",
    ]


def _short(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"
