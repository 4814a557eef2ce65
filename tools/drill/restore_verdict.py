"""The restore drill's verdict, a pure function of what the provider (the mail simulator)
recorded and what the restored database holds: no process, no network, so a self-test can
hand it a broken world and see it fail.

The rules: every key the provider delivered, it delivered once; every email the restored
database sent again went under the key it had before the restore (so the provider replayed
it and sent nothing); no customer got a second email of one kind under another key; every
order accepted before the dump is in the restored database; the orders accepted after it
that the database no longer has are listed, their customers got at most one email of each
kind, and each of them whose events still sat in the broker had them dead-lettered (class
`restore`) by the after-restore check, with no email sent.
"""

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class RestoreEvidence:
    messages_before: list[dict]  # /_sim/messages when the product stopped, before the restore
    messages: list[dict]  # /_sim/messages at the end
    requests_after: list[dict]  # /_sim/requests made after the restore
    placed_before_dump: set[str]  # order ids whose 201 came before pg_dump started
    placed_after_dump: set[str]  # the rest, emails settled before the stop
    queued_at_stop: set[str]  # placed with the workers stopped: their events still queued
    restored_orders: set[str]  # order ids in the restored database
    dead_lettered_orders: set[str]  # orders named by the after-restore check's `restore` dead letters
    customer_of: dict[str, str]  # order id -> customer email


@dataclass
class RestoreVerdict:
    keys_delivered: int = 0
    messages_per_key: dict[int, int] = field(default_factory=dict)  # messages under one key -> keys
    keys_delivered_twice: list[str] = field(default_factory=list)
    duplicates_to_a_customer: int = 0  # a second email of one kind to one customer, any key
    resent: int = 0  # distinct keys the restored product asked the provider for
    resent_under_original_key: int = 0
    resent_replayed: int = 0  # answered by the provider's idempotency record, nothing sent
    sent_first_after_restore: int = 0  # new keys after the restore (an email never sent before)
    lost_before_dump: list[str] = field(default_factory=list)  # must stay empty
    lost_by_restore: list[str] = field(default_factory=list)  # accepted after the dump, not restored
    lost_by_restore_with_email: int = 0  # their customers' emails, sent once before the stop
    queued_dead_lettered: int = 0
    queued_not_dead_lettered: list[str] = field(default_factory=list)
    queued_with_email: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def restore_verdict(evidence: RestoreEvidence) -> RestoreVerdict:
    verdict = RestoreVerdict()
    _check_keys(verdict, evidence)
    _check_resends(verdict, evidence)
    _check_orders(verdict, evidence)
    return verdict


def customer_and_kind(message: dict) -> tuple[tuple[str, ...], str]:
    """One customer and one kind of email (the subject's last word, as tools/drill/verdict.py reads it)."""
    return tuple(message["to"]), message["subject"].rsplit(" ", 1)[-1]


def _check_keys(verdict: RestoreVerdict, evidence: RestoreEvidence) -> None:
    per_key = Counter(message["idempotency_key"] for message in evidence.messages)
    verdict.keys_delivered = len(per_key)
    verdict.messages_per_key = dict(sorted(Counter(per_key.values()).items()))
    verdict.keys_delivered_twice = sorted(key for key, n in per_key.items() if n > 1)
    for key in verdict.keys_delivered_twice:
        verdict.problems.append(f"the provider delivered {per_key[key]} messages under the key {key}")
    per_customer = Counter(customer_and_kind(message) for message in evidence.messages)
    verdict.duplicates_to_a_customer = sum(n - 1 for n in per_customer.values() if n > 1)
    for (to, kind), n in per_customer.items():
        if n > 1:
            verdict.problems.append(f"{', '.join(to)} got {n} {kind} emails")


def _check_resends(verdict: RestoreVerdict, evidence: RestoreEvidence) -> None:
    keys_before = {message["idempotency_key"] for message in evidence.messages_before}
    asked = {request["idempotency_key"] for request in evidence.requests_after if request["idempotency_key"]}
    replayed = {r["idempotency_key"] for r in evidence.requests_after if r["outcome"] == "replayed"}
    verdict.resent = len(asked & keys_before)
    verdict.resent_under_original_key = verdict.resent
    verdict.resent_replayed = len(asked & keys_before & replayed)
    verdict.sent_first_after_restore = len(asked - keys_before)
    emailed_before = {customer_and_kind(message) for message in evidence.messages_before}
    for message in evidence.messages:
        if message["idempotency_key"] in asked - keys_before and customer_and_kind(message) in emailed_before:
            verdict.problems.append(
                f"an email sent before the restore went again after it under a new key "
                f"{message['idempotency_key']} ({', '.join(message['to'])})"
            )
    for key in sorted(asked & keys_before - replayed):
        verdict.problems.append(f"the resend under {key} was never answered from the provider's key record")


def _check_orders(verdict: RestoreVerdict, evidence: RestoreEvidence) -> None:
    restored = evidence.restored_orders
    verdict.lost_before_dump = sorted(evidence.placed_before_dump - restored)
    for order_id in verdict.lost_before_dump:
        verdict.problems.append(f"order {order_id} was accepted before the dump and is not restored")
    verdict.lost_by_restore = sorted((evidence.placed_after_dump | evidence.queued_at_stop) - restored)
    emailed = {to for message in evidence.messages for to in message["to"]}
    verdict.lost_by_restore_with_email = sum(
        evidence.customer_of[order_id] in emailed
        for order_id in set(verdict.lost_by_restore) - evidence.queued_at_stop
    )
    for order_id in sorted(evidence.queued_at_stop):
        if order_id in restored:
            verdict.problems.append(f"order {order_id} was placed after the dump, yet the restore has it")
        elif order_id in evidence.dead_lettered_orders:
            verdict.queued_dead_lettered += 1
        else:
            verdict.queued_not_dead_lettered.append(order_id)
            verdict.problems.append(
                f"order {order_id}'s queued events were not dead-lettered (class restore)"
            )
        if evidence.customer_of[order_id] in emailed:
            verdict.queued_with_email.append(order_id)
            verdict.problems.append(f"order {order_id} is not in the database, yet its customer got an email")
