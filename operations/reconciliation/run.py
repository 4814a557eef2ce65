"""Reconcile: compare what was accepted with what was completed, and find what is stuck.

Run daily by beat and by hand after an incident or a database restore. The ledger and the
findings are in this package (operations/reconciliation/); each run is stored as a
ReconcileReport and every finding as a ReconcileMismatch with an owner (both in the admin).
Every stuck email is safe to repair by publishing its event again: the inbox makes a
processed event a no-op, and the notification's idempotency key makes a resend within the
provider's window one email.
"""

from datetime import timedelta
from typing import Any, TypedDict

from django.utils import timezone

from messaging.models import OutboxEvent
from messaging.relay.publisher import PublishError
from messaging.relay.relay import outbox_events_publish
from notifications.models import Notification, ReconcileReport
from notifications.selectors import notification_outbox_event
from operations.reconciliation import findings as ours
from operations.reconciliation import invoice_findings as invoices
from operations.reconciliation import provider_evidence as theirs
from operations.reconciliation.documents import document_rows, documents_summary
from operations.reconciliation.invoice_numbering import broken_numbering
from operations.reconciliation.ledger import ledger_rows
from operations.reconciliation.mismatches import MismatchCounts, mismatches_record

LEDGER_DAYS = 7  # today and the six days before: older days were reconciled by earlier runs


class Repair(TypedDict, total=False):
    """Empty when nothing was to be republished; `error` when the broker was away."""

    republished: list[str]
    failed: dict[str, str]  # event id: reason
    error: str


def reconcile_run(*, stuck_after: timedelta = timedelta(minutes=15), repair: bool = False) -> ReconcileReport:
    started = timezone.now()
    since, before = ours.window_start(started, LEDGER_DAYS), started - stuck_after
    stuck = ours.stuck_emails(before=before)
    lost_events = ours.published_but_unprocessed(since=since, before=before)
    contradicted, unknown = theirs.reported_but_not_sent(since=since, now=started)
    found = [
        ours.missing_emails(since=since, before=before),
        stuck,
        ours.waiting_for_person(since=since),
        theirs.sent_without_evidence(since=since, now=started),
        contradicted,
        unknown,
        invoices.missing_invoices(since=since),
        invoices.unsettled_documents(since=since),
        broken_numbering(since=since, now=started),
    ]
    ledger, documents = ledger_rows(since=since), document_rows(since=since)
    report = ReconcileReport.objects.create(
        started_at=started,
        finished_at=started,
        summary="",
        findings=_findings(found, lost_events) | {"documents": documents},
        ledger=ledger,
    )
    counts = mismatches_record(found, report)
    stuck_events = {_outbox_event(f.notification_id) for f in stuck.findings}
    to_republish = stuck_events | set(lost_events)
    report.repaired = dict(_republish(to_republish)) if repair else {}
    summary = _summary(found, ledger, counts, report.repaired, len(lost_events))
    report.summary = f"{summary}; {documents_summary(documents)}; {invoices.invoice_problems_summary(found)}"
    report.finished_at = timezone.now()
    report.save(update_fields=["repaired", "summary", "finished_at"])
    return report


def _outbox_event(notification_id: int | None) -> OutboxEvent | None:
    notification = Notification.objects.filter(pk=notification_id or 0).first()
    return notification_outbox_event(notification) if notification else None


def _findings(found: list[ours.Found], lost_events: list[OutboxEvent]) -> dict[str, Any]:
    """The report's findings by problem (and the lists earlier reports and scripts read)."""
    by_problem = {group.problem: group for group in found}
    stuck = by_problem["stuck"]
    missing = by_problem["missing_email"].findings
    return {
        "stuck_notifications": [
            {"notification": f.notification_id, "order": str(f.order_id), "kind": f.kind, "detail": f.detail}
            for f in stuck.findings
        ],
        "published_but_unprocessed_events": [str(event.id) for event in lost_events],
        "orders_without_confirmation": [str(f.order_id) for f in missing if f.kind == "order_confirmation"],
        "counts": {group.problem: len(group.findings) for group in found},
        "incomplete": [group.problem for group in found if not group.complete],
    }


def _republish(events: set[OutboxEvent | None]) -> Repair:
    found = sorted((event for event in events if event is not None), key=lambda event: event.created_at)
    if not found:
        return {}
    try:
        report = outbox_events_publish(found)
    except PublishError as exc:
        return {"error": f"broker unreachable, nothing republished: {exc}"}
    return {
        "republished": [str(event.id) for event in found if event.id not in report.failures],
        "failed": {str(event_id): reason for event_id, reason in report.failures.items()},
    }


def _summary(
    found: list[ours.Found], ledger: list[dict[str, Any]], counts: MismatchCounts, repaired: dict, lost: int
) -> str:
    open_emails = sum(row["open"] for row in ledger)
    parts = [
        f"{sum(row['accepted'] for row in ledger)} email(s) expected in {LEDGER_DAYS} days, "
        f"{open_emails} not done",
        f"{counts.opened} new mismatch(es), {counts.still_open} still open, {counts.closed} closed",
    ]
    by_problem = {group.problem: len(group.findings) for group in found}
    parts.append(f"{by_problem['stuck']} stuck notification(s)")
    parts.append(f"{lost} published but unprocessed event(s)")
    if counts.without_owner:
        parts.append(
            f"{counts.without_owner} without an owner: add people to the Notification reviewers group"
        )
    if repaired.get("republished"):
        parts.append(f"{len(repaired['republished'])} event(s) republished")
    if repaired.get("error"):
        parts.append(repaired["error"])
    return "; ".join(parts)
