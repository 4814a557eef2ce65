"""The restore drill's verdict can fail: handed the provider's records of a restore that went
wrong (a key delivered twice, a resend under a new key, an order from before the dump missing,
a queued event not dead-lettered), it says so; handed a clean one, it passes."""

from tools.drill.load import LoadResult
from tools.drill.restore_numbers import RestoreNumbersVerdict
from tools.drill.restore_report import restore_outcome
from tools.drill.restore_verdict import RestoreEvidence, restore_verdict
from tools.drill.verdict import Verdict

BEFORE, AFTER, QUEUED = "order-before", "order-after", "order-queued"
# The invoice numbers of a clean restore, all shown (tests/unit/test_restore_numbers.py judges them).
NUMBERS_SHOWN = RestoreNumbersVerdict(
    documents_emailed_before_the_dump=1,
    documents_issued_after_the_restore=1,
    series={"api": {"to_void": [2, 2]}},
)


def _message(key: str, to: str, kind: str = "confirmation") -> dict:
    return {"idempotency_key": key, "to": [to], "subject": f"Your order {kind}"}


def _request(key: str, outcome: str = "replayed") -> dict:
    return {"idempotency_key": key, "outcome": outcome}


def _evidence(**changes) -> RestoreEvidence:
    """A clean restore: the order from before the dump had its confirmation in flight at the
    dump, sent before the stop and resent after the restore under its key (replayed); the
    order from after the dump got its email once and is lost by the restore; the order placed
    with the workers stopped had its events dead-lettered and no email."""
    sent = [_message("key-before", "a@example.com"), _message("key-after", "b@example.com")]
    evidence = RestoreEvidence(
        messages_before=sent,
        messages=list(sent),
        requests_after=[_request("key-before")],
        placed_before_dump={BEFORE},
        placed_after_dump={AFTER},
        queued_at_stop={QUEUED},
        restored_orders={BEFORE},
        dead_lettered_orders={QUEUED},
        customer_of={BEFORE: "a@example.com", AFTER: "b@example.com", QUEUED: "c@example.com"},
    )
    for name, value in changes.items():
        setattr(evidence, name, value)
    return evidence


def test_a_clean_restore_passes_and_counts_what_it_saw():
    verdict = restore_verdict(_evidence())
    assert verdict.passed, verdict.problems
    assert verdict.messages_per_key == {1: 2}
    assert (verdict.resent, verdict.resent_under_original_key, verdict.resent_replayed) == (1, 1, 1)
    assert verdict.lost_by_restore == sorted([AFTER, QUEUED])
    assert (verdict.lost_by_restore_with_email, verdict.queued_dead_lettered) == (1, 1)


def test_a_key_the_provider_delivered_twice_fails_it():
    evidence = _evidence()
    evidence.messages = [*evidence.messages, _message("key-before", "a@example.com")]
    verdict = restore_verdict(evidence)
    assert not verdict.passed
    assert verdict.keys_delivered_twice == ["key-before"]
    assert verdict.messages_per_key == {1: 1, 2: 1}
    assert "the provider delivered 2 messages under the key key-before" in verdict.problems


def test_a_resend_under_a_new_key_fails_it():
    evidence = _evidence(requests_after=[_request("key-new", outcome="accepted")])
    evidence.messages = [*evidence.messages, _message("key-new", "a@example.com")]
    verdict = restore_verdict(evidence)
    assert not verdict.passed
    assert verdict.duplicates_to_a_customer == 1
    assert verdict.sent_first_after_restore == 1
    assert any("under a new key key-new" in problem for problem in verdict.problems)


def test_a_resend_the_provider_did_not_replay_fails_it():
    verdict = restore_verdict(
        _evidence(requests_after=[_request("key-before", outcome="invalid_idempotent_request")])
    )
    assert not verdict.passed
    assert verdict.resent_replayed == 0


def test_an_order_from_before_the_dump_missing_after_the_restore_fails_it():
    verdict = restore_verdict(_evidence(restored_orders=set()))
    assert not verdict.passed
    assert verdict.lost_before_dump == [BEFORE]


def test_a_queued_event_left_in_the_broker_or_emailed_fails_it():
    evidence = _evidence(dead_lettered_orders=set())
    evidence.messages = [*evidence.messages, _message("key-queued", "c@example.com")]
    verdict = restore_verdict(evidence)
    assert not verdict.passed
    assert verdict.queued_not_dead_lettered == [QUEUED]
    assert verdict.queued_with_email == [QUEUED]


def _outcome_of(evidence: RestoreEvidence, *, placed: int = 2, settled: tuple[bool, bool] = (True, True)):
    load = LoadResult(orders_asked=2, accepted={f"order-{n}": "x@example.com" for n in range(placed)})
    return restore_outcome(
        restore_verdict(evidence), NUMBERS_SHOWN, Verdict(), evidence, loads=(load, load), settled=settled
    )


def test_a_drill_that_resent_nothing_or_placed_less_than_asked_is_incomplete_not_passed():
    assert _outcome_of(_evidence())[0] == "PASSED"
    outcome, problems = _outcome_of(_evidence(requests_after=[]))
    assert outcome == "INCOMPLETE"
    assert problems == ["no email was in flight at the dump: nothing was resent after the restore"]
    outcome, problems = _outcome_of(_evidence(), placed=1)
    assert outcome == "INCOMPLETE"
    assert "the load placed 1 of 2 orders" in problems[0]


def test_a_failure_or_no_settling_is_failed_whatever_the_load_did():
    assert _outcome_of(_evidence(restored_orders=set()), placed=1)[0] == "FAILED"
    assert _outcome_of(_evidence(), settled=(True, False))[0] == "FAILED"
