"""Findings kept as mismatches, each with an owner and a due date.

A finding seen again updates its open mismatch (one per problem and subject: a database
constraint); a new one goes to the reviewer with the fewest open mismatches (or to the
email's own reviewer); one no longer found is closed by the run, with what it saw; one a
person closed with a comment is not opened again. Runs are
serialised by an advisory lock, so a daily run and a hand-started one cannot open the same
mismatch twice.
"""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from notifications.audit import action_done
from notifications.models import OperatorAction, ReconcileMismatch, ReconcileReport
from operations.reconciliation.findings import Finding, Found
from operations.reviewers import GROUP_NAME

DUE_AFTER = timedelta(days=1)  # a mismatch is looked at within a working day
_LOCK = 0x5EC0_4C1E  # pg_advisory_xact_lock key of the mismatch bookkeeping
MIN_COMMENT = 5


class MismatchRefused(Exception):
    """Said to the person in plain words; nothing was changed."""


@dataclass(frozen=True)
class MismatchCounts:
    opened: int
    still_open: int
    closed: int
    without_owner: int


def mismatches_record(found: list[Found], report: ReconcileReport) -> MismatchCounts:
    now = report.started_at
    checked = {group.problem for group in found if group.complete}
    findings = {(f.problem, f.subject): f for group in found for f in group.findings}
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        for key in _accepted_by_a_person(findings):
            del findings[key]
        open_rows = {
            (row.problem, row.subject): row
            for row in ReconcileMismatch.objects.select_for_update().filter(resolved_at__isnull=True)
        }
        owners = _Owners()
        opened = without_owner = 0
        for key, finding in findings.items():
            row = open_rows.get(key)
            if row is not None:
                row.last_found_at, row.report, row.detail = now, report, finding.detail
                row.save(update_fields=["last_found_at", "report", "detail"])
                continue
            owner_id = finding.owner_id or owners.next()
            without_owner += owner_id is None
            _open(finding, owner_id, report, now)
            opened += 1
        gone = [row for key, row in open_rows.items() if key not in findings and row.problem in checked]
        for row in gone:
            _close_by_run(row, report, now)
    return MismatchCounts(opened, len(findings) - opened, len(gone), without_owner)


def _accepted_by_a_person(findings: dict[tuple[str, str], Finding]) -> set[tuple[str, str]]:
    """Findings a person already closed with a comment (accepted as they are): not opened
    again every day. A finding closed by a run (it had gone) and back again is opened again."""
    closed = ReconcileMismatch.objects.filter(
        resolved_by__isnull=False, subject__in=[subject for _, subject in findings]
    ).values_list("problem", "subject")
    return set(closed) & set(findings)


def mismatch_resolve(*, mismatch_id: int, actor: User, comment: str) -> ReconcileMismatch:
    """A person closes a mismatch: what they checked or did, in their words (audited)."""
    comment = comment.strip()
    if len(comment) < MIN_COMMENT:
        raise MismatchRefused("Write what you checked or did (a few words at least) to close a mismatch.")
    with transaction.atomic():
        row = ReconcileMismatch.objects.select_for_update().get(pk=mismatch_id)
        if row.resolved_at is not None:
            raise MismatchRefused(f"Mismatch {row.pk} is already closed ({row.resolution}).")
        row.resolved_at, row.resolved_by, row.resolution = timezone.now(), actor, comment
        row.save(update_fields=["resolved_at", "resolved_by", "resolution"])
        action_done(
            action=OperatorAction.Action.RESOLVE_MISMATCH,
            actor=actor,
            actor_name=actor.get_username(),
            notification=row.notification,
            comment=comment,
            result=f"closed mismatch {row.pk}: {row}",
        )
    return row


def _open(finding: Finding, owner_id: int | None, report: ReconcileReport, now: datetime) -> None:
    ReconcileMismatch.objects.create(
        problem=finding.problem,
        subject=finding.subject,
        day=finding.day,
        kind=finding.kind,
        order_id=finding.order_id,
        notification_id=finding.notification_id,
        provider_event_id=finding.provider_event_id,
        amount=finding.amount,
        currency=finding.currency,
        detail=finding.detail,
        owner_id=owner_id,
        due_at=now + DUE_AFTER,
        first_found_at=now,
        last_found_at=now,
        report=report,
    )


def _close_by_run(row: ReconcileMismatch, report: ReconcileReport, now: datetime) -> None:
    state = f" (the email is {row.notification.get_status_display()})" if row.notification else ""
    row.resolved_at = now
    row.resolution = f"No longer found by reconcile report {report.pk}{state}."
    row.save(update_fields=["resolved_at", "resolution"])


class _Owners:
    """The reviewers in turn, the least loaded first: open mismatches each already owns."""

    def __init__(self) -> None:
        reviewers = User.objects.filter(groups__name=GROUP_NAME, is_active=True).values_list("pk", flat=True)
        owned = dict(
            ReconcileMismatch.objects.filter(resolved_at__isnull=True, owner__in=list(reviewers))
            .values_list("owner")
            .annotate(n=Count("pk"))
        )
        self._load = Counter({pk: owned.get(pk, 0) for pk in reviewers})

    def next(self) -> int | None:
        if not self._load:
            return None
        owner = min(self._load, key=lambda pk: (self._load[pk], pk))
        self._load[owner] += 1
        return owner
