"""The restore drill's invoice numbers (docs/operations.md, "After a database restore to an
earlier point", step 4), a pure function of what the provider (the mail simulator) recorded and
what the restored database holds: no process, no network, so a test can hand it a restore whose
void was left out and see it fail.

The restore takes each series' counter back, yet the documents issued after the restore point
were already emailed, their PDFs named by their numbers (INV-000123.pdf, CN-000124.pdf: one
series' numbers). The operator reads the highest number given out from the provider's log and
voids up to it; the drill does the same from the simulator's messages (voids_to_ask).

The rules: across the whole run no number of a series was emailed for two different documents
(two PDFs, told apart by their sha256, under one number); every number emailed is held in the
restored database by the very document emailed under it, or voided; the restored database's
numbers and the voided runs make each series 1..n, no gap, none twice (invoice_verdict.py's
rule); and the runs the restore called for (past the restored counter, up to the highest number
emailed before it) were voided.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tools.drill.invoice_verdict import numbering_problems

# The number a document's file name ends with (pdf.py's invoice_filename: the number as printed,
# "2026/INV-000001" with a dash for the slash).
_NUMBER_IN_NAME = re.compile(r"(\d+)\.pdf$")
PDF = "application/pdf"


@dataclass(frozen=True)
class EmailedDocument:
    series: str
    number: int
    sha256: str  # the PDF's bytes: two documents under one number have two
    message_id: str
    accepted_at: str  # when the provider accepted its email (ISO 8601)


@dataclass(frozen=True)
class VoidAsked:
    """One `manage.py invoice_numbers_void` the restore calls for."""

    series: str
    first: int  # the restored counter's next number
    through: int  # the highest number emailed before the restore
    new_series: bool  # the restored database has no counter of the series


@dataclass
class RestoreNumbersEvidence:
    messages: list[dict]  # /_sim/messages at the end: the whole run
    emailed_at_the_stop: list[dict]  # /_sim/messages when the product stopped, before the restore
    dump_started_at: float  # epoch seconds
    restored_at: float  # epoch seconds, pg_restore done: a document issued later is new
    series_of: dict[str, str]  # a recipient's address -> the series of their documents
    counters_at_restore: dict[str, int]  # series -> next number, as the restore left them
    # At the end, as rows: the restored database's documents (series, number, pdf_sha256,
    # issued_at), its counters (series, next_number) and its voided runs (series, first, last).
    documents: list[dict]
    counters: list[dict]
    voided: list[dict]


@dataclass
class RestoreNumbersVerdict:
    documents_emailed_before_the_dump: int = 0
    documents_emailed_after_the_dump_started: int = 0  # and before the stop
    numbers_voided: int = 0
    documents_issued_after_the_restore: int = 0
    documents_emailed_after_the_restore: int = 0
    series: dict[str, dict[str, Any]] = field(default_factory=dict)  # what each series asked and got
    numbers_given_twice: list[str] = field(default_factory=list)  # "series/number"
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def emailed_documents(messages: list[dict], series_of: dict[str, str]) -> list[EmailedDocument]:
    """Each PDF attached to a message, with its recipient's series and the number its name ends
    with (an attachment of a recipient of no known series, or with no number, is not one)."""
    found = []
    for message in messages:
        series = next((series_of[to] for to in message["to"] if to in series_of), None)
        for attachment in message.get("attachments", []):
            named = _NUMBER_IN_NAME.search(attachment["filename"])
            if series is None or named is None or attachment.get("content_type") != PDF:
                continue
            found.append(
                EmailedDocument(
                    series, int(named.group(1)), attachment["sha256"], message["id"], message["accepted_at"]
                )
            )
    return found


def voids_to_ask(
    messages: list[dict], counters: dict[str, int], series_of: dict[str, str]
) -> list[VoidAsked]:
    """Per series, the run from the restored counter's next number up to the highest number
    emailed: none where the counter is already past it."""
    highest: dict[str, int] = {}
    for document in emailed_documents(messages, series_of):
        highest[document.series] = max(highest.get(document.series, 0), document.number)
    return [
        VoidAsked(series, counters.get(series, 1), through, series not in counters)
        for series, through in sorted(highest.items())
        if through >= counters.get(series, 1)
    ]


def restore_numbers_verdict(evidence: RestoreNumbersEvidence) -> RestoreNumbersVerdict:
    verdict = RestoreNumbersVerdict()
    everything = emailed_documents(evidence.messages, evidence.series_of)
    _count(verdict, evidence, everything)
    _check_one_document_per_number(verdict, everything)
    _check_emailed_numbers_held(verdict, evidence, everything)
    verdict.problems += numbering_problems(evidence.documents, evidence.counters, evidence.voided)
    _check_voids(verdict, evidence)
    return verdict


def numbers_shortfalls(verdict: RestoreNumbersVerdict) -> list[str]:
    """What the drill was asked to show of the numbers and did not: documents emailed on both
    sides of the dump, a run to void, documents issued after the restore."""
    shown = {
        "no document was emailed before the dump": verdict.documents_emailed_before_the_dump,
        "no number emailed before the restore lay past the restored counter: nothing to void": any(
            row["to_void"] for row in verdict.series.values()
        ),
        "no document was issued after the restore": verdict.documents_issued_after_the_restore,
    }
    return [shortfall for shortfall, done in shown.items() if not done]


def _count(verdict: RestoreNumbersVerdict, evidence: RestoreNumbersEvidence, everything: list) -> None:
    before_ids = {message["id"] for message in evidence.emailed_at_the_stop}
    before = {(d.series, d.number): d for d in everything if d.message_id in before_ids}
    verdict.documents_emailed_before_the_dump = sum(
        _epoch(d.accepted_at) < evidence.dump_started_at for d in before.values()
    )
    verdict.documents_emailed_after_the_dump_started = len(before) - verdict.documents_emailed_before_the_dump
    verdict.documents_emailed_after_the_restore = len(
        {(d.series, d.number) for d in everything if d.message_id not in before_ids}
    )
    verdict.numbers_voided = sum(run["last"] - run["first"] + 1 for run in evidence.voided)
    verdict.documents_issued_after_the_restore = sum(
        document["issued_at"].timestamp() >= evidence.restored_at for document in evidence.documents
    )


def _check_one_document_per_number(verdict: RestoreNumbersVerdict, everything: list) -> None:
    documents: dict[tuple[str, int], set[str]] = defaultdict(set)
    for emailed in everything:
        documents[(emailed.series, emailed.number)].add(emailed.sha256)
    for (series, number), hashes in sorted(documents.items()):
        if len(hashes) > 1:
            verdict.numbers_given_twice.append(f"{series}/{number}")
            verdict.problems.append(
                f"series {series}: number {number} was emailed for {len(hashes)} different documents "
                f"(PDFs {', '.join(sorted(h[:12] for h in hashes))}), expected one"
            )


def _check_emailed_numbers_held(
    verdict: RestoreNumbersVerdict, evidence: RestoreNumbersEvidence, everything: list
) -> None:
    """A number out in the world belongs to its document: the restored database holds it with
    that document's PDF, or has voided it, so no later document gets it."""
    held = {(d["series"], d["number"]): d["pdf_sha256"] for d in evidence.documents}
    voided = _voided_numbers(evidence.voided)
    for series, number, sha256 in sorted({(d.series, d.number, d.sha256) for d in everything}):
        where = (series, number)
        if where in voided or held.get(where) == sha256:
            continue
        if where in held and f"{series}/{number}" not in verdict.numbers_given_twice:
            verdict.numbers_given_twice.append(f"{series}/{number}")
        found = f"a document with the PDF {held[where][:12] or '(none yet)'}" if where in held else "neither"
        verdict.problems.append(
            f"series {series}: number {number} was emailed with the PDF {sha256[:12]}; expected the "
            f"restored database to hold it with that PDF or to have voided it, found {found}"
        )


def _check_voids(verdict: RestoreNumbersVerdict, evidence: RestoreNumbersEvidence) -> None:
    """Each series: what the restore called for (the run past its restored counter up to the
    highest number emailed before it), what was voided, and what was issued after."""
    called_for = voids_to_ask(evidence.emailed_at_the_stop, evidence.counters_at_restore, evidence.series_of)
    asked = {void.series: void for void in called_for}
    issued_after, runs = defaultdict(list), defaultdict(list)
    for document in evidence.documents:
        if document["issued_at"].timestamp() >= evidence.restored_at:
            issued_after[document["series"]].append(document["number"])
    for run in evidence.voided:
        runs[run["series"]].append([run["first"], run["last"]])
    for series in sorted({*asked, *runs, *issued_after}):
        void, numbers = asked.get(series), sorted(issued_after[series])
        verdict.series[series] = {
            "restored_counter_next": evidence.counters_at_restore.get(series),
            "to_void": [void.first, void.through] if void else None,
            "voided": sorted(runs[series]),
            "issued_after_the_restore": [numbers[0], numbers[-1]] if numbers else None,
        }
        done = {number for first, last in runs[series] for number in range(first, last + 1)}
        if void and not set(range(void.first, void.through + 1)) <= done:
            verdict.problems.append(
                f"series {series}: numbers {void.first}..{void.through} were emailed before the restore past "
                f"its restored counter; expected them voided, found voided: {runs[series] or 'none'}"
            )


def _voided_numbers(runs: list[dict]) -> set[tuple[str, int]]:
    return {(run["series"], number) for run in runs for number in range(run["first"], run["last"] + 1)}


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
