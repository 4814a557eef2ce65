"""The invoices and credit notes the demo's orders got: the paid orders with lines (the API's
paid ones, the platforms' that arrive paid) an invoice each, each refund of one a credit note.
Read after the stream, counted per kind and currency, and the latest of each kind listed with
where to see it."""

import json
from dataclasses import dataclass, field
from datetime import datetime

from tools.demo.stack import manage

_READ = """
import json
from datetime import datetime
from django.db.models import Count, Sum
from orders.models import Invoice
issued = Invoice.objects.filter(issued_at__gte=datetime.fromisoformat({since!r}))
counts = issued.values("kind", "currency").annotate(n=Count("id"), total=Sum("total_minor")).order_by()
latest = [
    {{"id": str(i.pk), "kind": i.kind, "number": i.number_text, "series": i.series, "order": str(i.order_id),
      "total": i.total_minor, "currency": i.currency, "email": i.email_kind}}
    for kind in ("invoice", "credit_note")
    for i in issued.filter(kind=kind).order_by("-issued_at")[:2]
]
print(json.dumps({{"counts": list(counts), "latest": latest}}))
"""


@dataclass
class Documents:
    counts: list[dict] = field(default_factory=list)  # {"kind", "currency", "n", "total"} (minor units)
    latest: list[dict] = field(default_factory=list)  # the latest two of each kind

    def of_kind(self, kind: str) -> int:
        return sum(row["n"] for row in self.counts if row["kind"] == kind)


def documents_read(since: datetime) -> Documents:
    """The invoices and credit notes issued since the demo started."""
    found = json.loads(manage("shell", "--no-imports", "-c", _READ.format(since=since.isoformat())))
    return Documents(counts=found["counts"], latest=found["latest"])


def documents_print(web: str, documents: Documents) -> None:
    counts = "; ".join(
        f"{row['n']} {row['kind'].replace('_', ' ')}(s) in {row['currency']}, {_amount(row['total'])}"
        for row in sorted(documents.counts, key=lambda row: (row["kind"] != "invoice", row["currency"]))
    )
    print(f"\nInvoices and credit notes (a paid order with lines, a refund of one): {counts or 'none'}.")
    for document in documents.latest:
        carried = f"on its {document['email']} email" if document["email"] else "not emailed"
        print(
            f"  {document['number']} ({document['series']}), order {document['order']}: "
            f"{_amount(document['total'])} {document['currency']}, {carried}\n"
            f"    {web}/admin/orders/invoice/{document['id']}/change/"
        )
        if document["series"] == "api":  # the API serves an order to the client that placed it
            print(f"    {web}/api/orders/{document['order']}/documents/{document['number']}.pdf (its token)")
    print(f"  In the admin:      {web}/admin/orders/invoice/")


def _amount(minor: int) -> str:
    return f"{minor / 100:.2f}"
