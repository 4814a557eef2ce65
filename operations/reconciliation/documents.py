"""The invoices and credit notes issued, per day (of issue, local time), kind and currency: how
many and the sum of their totals, for the bookkeeping to compare with its own figures (a credit
note's total is negative). Kept in the report's findings as "documents"."""

from datetime import datetime
from typing import Any

from django.db.models import Count, Sum
from django.db.models.functions import TruncDate

from orders.content import minor_to_amount
from orders.models import Invoice


def document_rows(*, since: datetime) -> list[dict[str, Any]]:
    """One row per day, kind and currency, newest day first; the sum in minor units and as an
    amount (a string: JSON keeps it exact)."""
    grouped = (
        Invoice.objects.filter(issued_at__gte=since)
        .annotate(day=TruncDate("issued_at"))
        .values("day", "kind", "currency")
        .annotate(count=Count("id"), total_minor=Sum("total_minor"))
        .order_by()
    )
    rows = [
        {
            "day": values["day"].isoformat(),
            "kind": values["kind"],
            "currency": values["currency"],
            "count": values["count"],
            "total_minor": values["total_minor"],
            "total": str(minor_to_amount(values["total_minor"], values["currency"])),
        }
        for values in grouped
    ]
    return sorted(rows, key=lambda row: (row["day"], row["kind"], row["currency"]), reverse=True)


def documents_summary(rows: list[dict[str, Any]]) -> str:
    """The report's words for them: "3 invoice(s), 1 credit note(s) issued"."""
    counts = {kind: sum(row["count"] for row in rows if row["kind"] == kind) for kind in Invoice.Kind.values}
    return f"{counts['invoice']} invoice(s), {counts['credit_note']} credit note(s) issued"
