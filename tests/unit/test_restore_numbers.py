"""The restore drill's invoice numbers can fail: handed the provider's records and the restored
database of a restore whose void was left out (the runbook's step 4), cut short or laid over a
restored document, it reports the numbers given twice, what was asked and what was done; handed
a clean one, it passes and counts the documents emailed before, voided and issued after."""

from dataclasses import replace
from datetime import UTC, datetime

from tools.drill.load import LoadResult
from tools.drill.restore_numbers import (
    RestoreNumbersEvidence,
    VoidAsked,
    emailed_documents,
    numbers_shortfalls,
    restore_numbers_verdict,
    voids_to_ask,
)
from tools.drill.restore_report import restore_outcome
from tools.drill.restore_verdict import RestoreEvidence, restore_verdict
from tools.drill.verdict import Verdict

SERIES = "client-7c0e"
DUMP, STOP, RESTORED = 1000.0, 1100.0, 1200.0  # epoch seconds
SERIES_OF = {f"{name}@example.com": SERIES for name in "abcdef"}


def _at(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _message(id: str, to: str, at: float, *documents: tuple[str, str]) -> dict:
    """As /_sim/messages lists one: its attachments named by number, with their sha256."""
    attachments = [
        {"filename": name, "content_type": "application/pdf", "size": 1000, "sha256": sha256}
        for name, sha256 in documents
    ]
    return {"id": id, "to": [to], "accepted_at": _at(at), "attachments": attachments}


def _document(number: int, sha256: str, issued: float) -> dict:
    return {
        "series": SERIES,
        "number": number,
        "kind": "invoice",
        "pdf_sha256": sha256,
        "issued_at": datetime.fromtimestamp(issued, UTC),
    }


# Before the dump INV-000001 went to a@; after it, before the stop, INV-000002 to b@ and
# CN-000003 to c@ (their orders lost by the restore, which leaves the counter at 2).
BEFORE_THE_STOP = [
    _message("m1", "a@example.com", DUMP - 50, ("INV-000001.pdf", "sha-a1")),
    _message("m2", "b@example.com", DUMP + 10, ("INV-000002.pdf", "sha-b2")),
    _message("m3", "c@example.com", DUMP + 20, ("CN-000003.pdf", "sha-c3")),
    _message("m4", "f@example.com", DUMP + 30),  # a confirmation without a document
]


def _evidence(*, voided: list[tuple[int, int]], after: list[tuple[int, str]]) -> RestoreNumbersEvidence:
    """The restored database holds number 1; `voided` the runs voided; `after` the documents
    issued after the restore (number, PDF), each emailed to d@ (then e@)."""
    emailed_after = [
        _message(f"n{number}", f"{'de'[i % 2]}@example.com", RESTORED + 60, (f"INV-{number:06d}.pdf", sha256))
        for i, (number, sha256) in enumerate(after)
    ]
    given = max([1, *(last for _, last in voided), *(number for number, _ in after)])
    return RestoreNumbersEvidence(
        messages=BEFORE_THE_STOP + emailed_after,
        emailed_at_the_stop=list(BEFORE_THE_STOP),
        dump_started_at=DUMP,
        restored_at=RESTORED,
        series_of=SERIES_OF,
        counters_at_restore={SERIES: 2},
        documents=[_document(1, "sha-a1", DUMP - 60), *(_document(n, s, RESTORED + 50) for n, s in after)],
        counters=[{"series": SERIES, "next_number": given + 1}],
        voided=[{"series": SERIES, "first": first, "last": last} for first, last in voided],
    )


def test_a_restore_that_voided_the_emailed_numbers_passes_and_counts_them():
    verdict = restore_numbers_verdict(_evidence(voided=[(2, 3)], after=[(4, "sha-d4"), (5, "sha-e5")]))
    assert verdict.passed, verdict.problems
    assert (verdict.documents_emailed_before_the_dump, verdict.documents_emailed_after_the_dump_started) == (
        1,
        2,
    )
    assert (verdict.numbers_voided, verdict.documents_issued_after_the_restore) == (2, 2)
    assert verdict.documents_emailed_after_the_restore == 2
    assert verdict.numbers_given_twice == []
    assert verdict.series == {
        SERIES: {
            "restored_counter_next": 2,
            "to_void": [2, 3],
            "voided": [[2, 3]],
            "issued_after_the_restore": [4, 5],
        }
    }
    assert numbers_shortfalls(verdict) == []


def test_a_restore_without_the_void_gives_emailed_numbers_again_and_fails():
    # given: step 4 left out, the documents after the restore take 2 and 3 again
    verdict = restore_numbers_verdict(_evidence(voided=[], after=[(2, "sha-d2"), (3, "sha-e3")]))
    # then
    assert not verdict.passed
    assert verdict.numbers_given_twice == [f"{SERIES}/2", f"{SERIES}/3"]
    assert (
        f"series {SERIES}: number 2 was emailed for 2 different documents (PDFs sha-b2, sha-d2), expected one"
        in verdict.problems
    )
    assert (
        f"series {SERIES}: numbers 2..3 were emailed before the restore past its restored counter; "
        "expected them voided, found voided: none" in verdict.problems
    )
    assert verdict.numbers_voided == 0


def test_a_void_short_of_the_highest_number_emailed_fails_on_the_number_after_it():
    verdict = restore_numbers_verdict(_evidence(voided=[(2, 2)], after=[(3, "sha-d3")]))
    assert not verdict.passed
    assert verdict.numbers_given_twice == [f"{SERIES}/3"]
    assert any(
        "numbers 2..3" in problem and "found voided: [[2, 2]]" in problem for problem in verdict.problems
    )


def test_an_emailed_number_neither_held_nor_voided_fails_before_any_document_takes_it():
    verdict = restore_numbers_verdict(_evidence(voided=[], after=[]))
    assert not verdict.passed
    assert verdict.numbers_given_twice == []  # not yet: the next document would take it
    assert any(
        "number 3 was emailed with the PDF sha-c3" in problem and problem.endswith("found neither")
        for problem in verdict.problems
    )


def test_a_void_over_a_restored_document_is_a_number_held_twice():
    evidence = _evidence(voided=[(2, 3)], after=[(4, "sha-d4")])
    evidence = replace(evidence, voided=[*evidence.voided, {"series": SERIES, "first": 1, "last": 1}])
    verdict = restore_numbers_verdict(evidence)
    assert f"series {SERIES}: numbers given twice: 1" in verdict.problems


def test_the_numbers_to_void_are_read_from_the_pdfs_names_per_series():
    messages = [
        *BEFORE_THE_STOP,
        _message("x", "b@example.com", DUMP, ("2026-INV-000007.pdf", "sha-7"), ("terms.txt", "sha-t")),
        _message("y", "stranger@example.com", DUMP, ("INV-000099.pdf", "sha-99")),
    ]
    documents = emailed_documents(messages, SERIES_OF)
    assert [(d.series, d.number) for d in documents] == [(SERIES, 1), (SERIES, 2), (SERIES, 3), (SERIES, 7)]
    assert voids_to_ask(messages, {SERIES: 2}, SERIES_OF) == [VoidAsked(SERIES, 2, 7, False)]
    assert voids_to_ask(messages, {SERIES: 8}, SERIES_OF) == []  # the counter is past every one
    # a series the restored database does not know: its counter is created, from 1
    assert voids_to_ask(messages, {}, SERIES_OF) == [VoidAsked(SERIES, 1, 7, True)]


def _outcome(numbers_evidence: RestoreNumbersEvidence) -> tuple[str, list[str]]:
    """The drill's outcome with a clean restore but for the numbers."""
    message = {
        "id": "k",
        "idempotency_key": "k",
        "to": ["a@example.com"],
        "subject": "Your order confirmation",
    }
    evidence = RestoreEvidence(
        messages_before=[message],
        messages=[message],
        requests_after=[{"idempotency_key": "k", "outcome": "replayed"}],
        placed_before_dump={"o1"},
        placed_after_dump={"o2"},
        queued_at_stop=set(),
        restored_orders={"o1"},
        dead_lettered_orders=set(),
        customer_of={"o1": "a@example.com", "o2": "b@example.com"},
    )
    load = LoadResult(orders_asked=1, accepted={"o1": "a@example.com"})
    numbers = restore_numbers_verdict(numbers_evidence)
    return restore_outcome(
        restore_verdict(evidence), numbers, Verdict(), evidence, loads=(load,), settled=(True, True)
    )


def test_the_drill_fails_on_a_number_given_twice_and_is_incomplete_with_nothing_to_void():
    assert _outcome(_evidence(voided=[(2, 3)], after=[(4, "sha-d4")]))[0] == "PASSED"
    outcome, problems = _outcome(_evidence(voided=[], after=[(2, "sha-d2")]))
    assert outcome == "FAILED"
    assert any("number 2 was emailed for 2 different documents" in problem for problem in problems)
    # nothing emailed after the dump, nothing issued after the restore: shown nothing
    nothing = replace(
        _evidence(voided=[], after=[]), messages=BEFORE_THE_STOP[:1], emailed_at_the_stop=BEFORE_THE_STOP[:1]
    )
    outcome, problems = _outcome(nothing)
    assert outcome == "INCOMPLETE"
    assert problems == [
        "no number emailed before the restore lay past the restored counter: nothing to void",
        "no document was issued after the restore",
    ]
