"""The reconciliation in the admin: each run's ledger (per day, kind and currency, accepted
against done, in counts and amounts) and the mismatches, each with its owner and due date.
A reviewer closes a mismatch with a comment (audited) or hands it to someone else; nobody
edits what the run found."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.models import User
from django.db.models import ForeignKey, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from infra.action_limits import capped_description, selection_within_limit
from infra.read_only_admin import ReadOnlyAdmin
from infra.staff_request import StaffRequest
from notifications.models import ReconcileMismatch, ReconcileReport
from operations.reconciliation.invoice_numbering import SERIES_SUBJECT
from operations.reconciliation.mismatches import MismatchRefused, mismatch_resolve
from operations.reviewers import GROUP_NAME

LEDGER_COLUMNS = [
    ("accepted", "accepted"),
    ("sent", "sent"),
    ("closed", "closed without email"),
    ("with_person", "with a reviewer"),
    ("unfinished", "on its way"),
    ("missing", "missing"),
]


@admin.register(ReconcileReport)
class ReconcileReportAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "summary", "open_mismatches"]
    # The ledger as a table, not its JSON; the findings stay raw, for the one who digs.
    fields = (
        "summary",
        "ledger_table",
        "open_mismatches",
        "started_at",
        "finished_at",
        "findings",
        "repaired",
    )
    readonly_fields = fields

    @admin.display(description="ledger: accepted against done, per day, email and currency")
    def ledger_table(self, report: ReconcileReport) -> SafeString:
        head = format_html_join("", "<th>{}</th>", ((title,) for _, title in LEDGER_COLUMNS))
        rows = format_html_join("", "{}", ((_ledger_row(row),) for row in report.ledger))
        return format_html(
            '<div style="overflow-x: auto; max-width: 100%;">'
            '<table class="reconcile-ledger"><thead><tr><th>day</th><th>email</th><th>currency</th>{}'
            "<th>not done</th></tr></thead><tbody>{}</tbody></table></div>",
            head,
            rows,
        )

    @admin.display(description="open mismatches")
    def open_mismatches(self, report: ReconcileReport) -> SafeString:
        url = reverse("admin:notifications_reconcilemismatch_changelist")
        count = report.mismatches.filter(resolved_at__isnull=True).count()
        return format_html('<a href="{}?state=open">{}</a>', url, count)


def _ledger_row(row: dict[str, Any]) -> SafeString:
    cells = format_html_join(
        "",
        "<td>{} <small>({})</small></td>",
        ((row[name], row[f"{name}_amount"]) for name, _ in LEDGER_COLUMNS),
    )
    flag = "reconcile-open" if row["open"] else "reconcile-balanced"
    return format_html(
        '<tr class="{}"><td>{}</td><td>{}</td><td>{}</td>{}'
        "<td><strong>{}</strong> <small>({})</small></td></tr>",
        flag,
        row["day"],
        row["kind"],
        row["currency"],
        cells,
        row["open"],
        row["open_amount"],
    )


class MismatchActionForm(ActionForm):
    comment = forms.CharField(
        required=False, label="Comment (what you checked or did, to close)", max_length=2000
    )


class StateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("open", "open"),
            ("overdue", "open and overdue"),
            ("mine", "open and mine"),
            ("closed", "closed"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ReconcileMismatch]) -> QuerySet:
        open_rows = queryset.filter(resolved_at__isnull=True)
        if self.value() == "open":
            return open_rows
        if self.value() == "overdue":
            return open_rows.filter(due_at__lt=timezone.now())
        if self.value() == "mine":
            return open_rows.filter(owner_id=request.user.pk)
        if self.value() == "closed":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(ReconcileMismatch)
class ReconcileMismatchAdmin(admin.ModelAdmin):
    list_display = ["day", "kind", "problem", "about", "amount_shown", "detail", "owner", "due", "state"]
    list_filter = [StateFilter, "problem", "kind", "owner", "day"]
    search_fields = ["subject", "detail", "order__id"]
    list_per_page = 50
    action_form = MismatchActionForm
    actions = ["close_with_comment", "assign_to_me"]
    fields = (
        "problem",
        "about",
        "day",
        "kind",
        "amount_shown",
        "detail",
        "owner",
        "due_at",
        "first_found_at",
        "last_found_at",
        "report",
        "resolved_at",
        "resolved_by",
        "resolution",
    )
    # What the run found is not for editing; who owns it and by when is.
    readonly_fields = tuple(f for f in fields if f not in ("owner", "due_at"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "owner":  # a mismatch goes to a reviewer, no one else
            kwargs["queryset"] = User.objects.filter(groups__name=GROUP_NAME, is_active=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="about")
    def about(self, row: ReconcileMismatch) -> SafeString | str:
        if row.notification_id:
            url = reverse("admin:notifications_notification_change", args=[row.notification_id])
            order = str(row.order_id)[:8]
            return format_html('<a href="{}">email {}</a> (order {}…)', url, row.notification_id, order)
        if row.order_id:
            url = reverse("admin:orders_order_change", args=[row.order_id])
            return format_html('order <a href="{}">{}…</a>', url, str(row.order_id)[:8])
        if row.subject.startswith(SERIES_SUBJECT):
            series = row.subject.removeprefix(SERIES_SUBJECT)
            url = reverse("admin:orders_invoice_changelist")
            return format_html('invoice series <a href="{}?series={}">{}</a>', url, series, series)
        if row.provider_event_id:
            url = reverse("admin:notifications_providerevent_change", args=[row.provider_event_id])
            return format_html('<a href="{}">provider event</a>', url)
        return row.subject

    @admin.display(description="amount")
    def amount_shown(self, row: ReconcileMismatch) -> str:
        return f"{row.amount} {row.currency}" if row.amount is not None else "-"

    @admin.display(description="due", ordering="due_at")
    def due(self, row: ReconcileMismatch) -> SafeString | str:
        when = f"{timezone.localtime(row.due_at):%Y-%m-%d %H:%M}"
        if row.resolved_at is None and row.due_at < timezone.now():
            return format_html('<strong class="reconcile-overdue">{} (overdue)</strong>', when)
        return when

    @admin.display(description="state")
    def state(self, row: ReconcileMismatch) -> str:
        if row.resolved_at is None:
            return "open"
        who = row.resolved_by.get_username() if row.resolved_by else "reconcile"
        return f"closed by {who}: {row.resolution}"

    @admin.action(
        description=capped_description("Close with comment", "what you checked or did"),
        permissions=["change"],
    )
    def close_with_comment(self, request: StaffRequest, queryset: QuerySet[ReconcileMismatch]) -> None:
        comment = request.POST.get("comment", "")
        selected = selection_within_limit(self, request, queryset, "mismatches")
        if selected is None:
            return
        closed, refused = 0, []
        for row in selected:
            try:
                mismatch_resolve(mismatch_id=row.pk, actor=request.user, comment=comment)
                closed += 1
            except MismatchRefused as exc:
                refused.append(str(exc))
        if closed:
            self.message_user(request, f"{closed} mismatch(es) closed.", messages.SUCCESS)
        for reason in sorted(set(refused)):
            self.message_user(request, reason, messages.ERROR)

    @admin.action(description="Assign to me", permissions=["change"])
    def assign_to_me(self, request: StaffRequest, queryset: QuerySet[ReconcileMismatch]) -> None:
        count = queryset.filter(resolved_at__isnull=True).update(owner=request.user)
        self.message_user(request, f"{count} open mismatch(es) are now yours.", messages.SUCCESS)
