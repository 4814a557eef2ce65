"""The invoices' half of the verdict, from the database with plain SQL and the simulator's
messages: never from the code under test (docs/orders.md, "Invoices and credit notes").

The rules: every series' numbers are exactly 1..n (no gap, none twice) and its counter has
given no number that no document holds (a number voided after a restore counts as held);
every paid order with content has an invoice, at most one per content version, and no order
that was never paid has one; each invoiced order's
invoices and credit notes add up to its billable amount, what it holds now less what refunds
gave back beyond its overpayment, every credit note against an invoice of its own order and
none for an order without an invoice, a refund's at most one, of at most minus the refund
(invoice_settlement.py); every email that carries a document and was sent reached the provider
exactly once under its key, with that document's PDF (the attachment whose sha256 is the one
stored with the document). Counted per kind. The drill's stack issues invoices when an order
is paid (INVOICE_ISSUED_WHEN's default).
"""

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tools.drill.invoice_settlement import CREDIT_NOTE, INVOICE, INVOICED_ORDERS, settlement_problems

_INVOICES = (
    "SELECT id::text, order_id::text, kind, series, number, total_minor, version_number, "
    "refund_id::text, corrects_id::text, email_kind, email_subject_id::text, pdf_sha256 "
    "FROM orders_invoice"
)
_COUNTERS = "SELECT series, next_number FROM orders_invoicesequence"
# Numbers voided after a database restore (documents the database lost carry them): held.
_VOIDED = "SELECT series, first, last FROM orders_voidedinvoicenumbers"
_DUE = (
    "SELECT id::text, content_version, paid_at IS NOT NULL AS paid FROM orders_order "
    "WHERE content_version IS NOT NULL OR paid_at IS NULL"
)
_REFUNDS = "SELECT id::text, order_id::text, amount_minor FROM orders_refund"
_EMAILS = (
    "SELECT order_id::text, kind, subject_id::text, status, idempotency_key "
    "FROM notifications_notification WHERE kind IN ('order_confirmation', 'order_refund', "
    "'order_cancellation', 'order_edit', 'order_invoice')"
)


@dataclass
class InvoiceRows:
    """What the database holds, as rows (dicts by column name)."""

    invoices: list[dict[str, Any]] = field(default_factory=list)
    counters: list[dict[str, Any]] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)  # with content, or never paid
    refunds: list[dict[str, Any]] = field(default_factory=list)
    emails: list[dict[str, Any]] = field(default_factory=list)  # those that may carry a document
    invoiced_orders: list[dict[str, Any]] = field(default_factory=list)  # their amount and payment
    voided: list[dict[str, Any]] = field(default_factory=list)  # runs of numbers voided after a restore


@dataclass
class InvoiceVerdict:
    # Per kind: how many, and the sum of their totals in minor units (a credit note's negative).
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    series: int = 0
    emails_with_documents: int = 0  # sent emails carrying a document, each checked at the provider
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def invoice_rows(connection: psycopg.Connection[Any]) -> InvoiceRows:
    with connection.cursor(row_factory=dict_row) as cursor:
        queries = (_INVOICES, _COUNTERS, _DUE, _REFUNDS, _EMAILS, INVOICED_ORDERS, _VOIDED)
        read = [cursor.execute(sql).fetchall() for sql in queries]
    return InvoiceRows(*read)


def invoice_verdict(rows: InvoiceRows, messages: list[dict[str, Any]]) -> InvoiceVerdict:
    verdict = InvoiceVerdict(
        by_kind={kind: {"count": 0, "total_minor": 0} for kind in (INVOICE, CREDIT_NOTE)}
    )
    for invoice in rows.invoices:
        counted = verdict.by_kind.setdefault(invoice["kind"], {"count": 0, "total_minor": 0})
        counted["count"] += 1
        counted["total_minor"] += invoice["total_minor"]
    verdict.series = len({invoice["series"] for invoice in rows.invoices})
    verdict.problems += numbering_problems(rows.invoices, rows.counters, rows.voided)
    verdict.problems += _invoice_problems(rows.invoices, rows.orders)
    verdict.problems += settlement_problems(rows.invoices, rows.invoiced_orders, rows.refunds)
    verdict.emails_with_documents, email_problems = _email_problems(rows.invoices, rows.emails, messages)
    verdict.problems += email_problems
    return verdict


def invoice_summary(verdict: InvoiceVerdict) -> tuple[dict[str, Any], int, list[str]]:
    """For the drill's verdict: the counts (the problems as their number), the number of
    problems, and the problems."""
    return asdict(verdict) | {"problems": len(verdict.problems)}, len(verdict.problems), verdict.problems


def invoice_report_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's rows of the invoices' verdict (none when it was not judged)."""
    if not summary:
        return []
    kinds = summary["by_kind"]
    return [
        (
            "invoices / credit notes (sum of their totals, minor units)",
            " / ".join(
                f"{kinds[kind]['count']} ({kinds[kind]['total_minor']})" for kind in (INVOICE, CREDIT_NOTE)
            ),
        ),
        (
            "invoice series (each 1..n) / sent emails with a document, its PDF attached once",
            f"{summary['series']} / {summary['emails_with_documents']}",
        ),
        ("invoice problems (numbers, missing or doubled documents, PDFs)", str(summary["problems"])),
    ]


def numbering_problems(invoices: list[dict], counters: list[dict], voided: list[dict]) -> list[str]:
    """Each series 1..n: a number missing is a gap, a number held twice a duplicate; a counter
    past n gave numbers no document holds. A voided number is held by its void (and held
    twice if a document holds it too)."""
    numbers: dict[str, list[int]] = defaultdict(list)
    for invoice in invoices:
        numbers[invoice["series"]].append(invoice["number"])
    for run in voided:
        numbers[run["series"]] += range(run["first"], run["last"] + 1)
    problems = []
    for series, held in sorted(numbers.items()):
        twice = sorted(number for number, n in Counter(held).items() if n > 1)
        missing = sorted(set(range(1, max(held) + 1)) - set(held))
        if twice:
            problems.append(f"series {series}: numbers given twice: {_some(twice)}")
        if missing:
            problems.append(f"series {series}: numbers missing (a gap): {_some(missing)}")
    for counter in counters:
        given = counter["next_number"] - 1
        if given > max(numbers.get(counter["series"], [0])):
            problems.append(
                f"series {counter['series']}: its counter gave {given} numbers, no document holds the last"
            )
    return problems


def _invoice_problems(invoices: list[dict], orders: list[dict]) -> list[str]:
    """An invoice for every paid order with content, one per content version at most; none for
    an order never paid."""
    per_version = Counter((i["order_id"], i["version_number"]) for i in invoices if i["kind"] == INVOICE)
    per_order = Counter(order_id for order_id, _ in per_version.elements())
    problems = [
        f"order {order_id}: {n} invoices of its content version {version}"
        for (order_id, version), n in sorted(per_version.items(), key=str)
        if n > 1
    ]
    for order in orders:
        if order["paid"] and not per_order[order["id"]]:
            problems.append(f"order {order['id']}: paid with content, no invoice")
        elif not order["paid"] and per_order[order["id"]]:
            problems.append(f"order {order['id']}: never paid, yet {per_order[order['id']]} invoice(s)")
    return problems


def _email_problems(invoices: list[dict], emails: list[dict], messages: list[dict]) -> tuple[int, list[str]]:
    """Each sent email that carries a document: one message under its key, with the PDF."""
    by_email = {(e["order_id"], e["kind"], e["subject_id"]): e for e in emails}
    by_key: dict[str, list[dict]] = defaultdict(list)
    for message in messages:
        by_key[message["idempotency_key"]].append(message)
    checked, problems = 0, []
    for invoice in invoices:
        if not invoice["email_kind"]:
            continue  # not carried by any email (none of this release issues such a document)
        email = by_email.get((invoice["order_id"], invoice["email_kind"], invoice["email_subject_id"]))
        if email is None or email["status"] != "sent":
            continue  # not sent (skipped for a cancellation, with a person): the main verdict judges it
        checked += 1
        what = f"{invoice['kind']} {invoice['series']}/{invoice['number']} on its {invoice['email_kind']}"
        found = by_key.get(email["idempotency_key"], [])
        if len(found) != 1:
            problems.append(f"{what}: the provider has {len(found)} messages under its key")
            continue
        hashes = [attachment.get("sha256") for attachment in found[0].get("attachments", [])]
        if not invoice["pdf_sha256"] or invoice["pdf_sha256"] not in hashes:
            problems.append(
                f"{what}: its PDF ({invoice['pdf_sha256'][:12] or 'none stored'}) is not attached"
            )
    return checked, problems


def _some(numbers: list[int]) -> str:
    shown = ", ".join(str(number) for number in numbers[:10])
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")
