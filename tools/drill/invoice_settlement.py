"""The credit notes' half of the invoices' verdict: what an order's documents bill together,
judged from the database's rows alone, never from the code under test (docs/orders.md,
"Invoices and credit notes").

An order's invoices and credit notes together bill what it holds now (a cancelled order: what
came in of it, at most its total) less what refunds gave back beyond its overpayment (what its
payment took beyond its total, which an edit down after the payment leaves): its billable
amount. A refund of that overpayment corrects no invoice; any other refund is credited, when it
is made or by the edit after it (whose credit note names no refund). So the verdict sums each
invoiced order's documents instead of matching notes to refunds.
"""

from collections import defaultdict
from decimal import Decimal

from babel.numbers import get_currency_precision

INVOICE, CREDIT_NOTE = "invoice", "credit_note"
# The invoiced orders: what they hold now, what their payment took (0 never paid; NULL
# paid before it was kept, when their total stands for it, as for the product), and their status.
ORDER_MONEY = (
    "SELECT id::text, amount, currency, status, "
    "CASE WHEN paid_at IS NULL AND status <> 'paid' THEN 0 ELSE paid_minor END AS paid_minor "
    "FROM orders_order o"
)
INVOICED_ORDERS = (
    f"{ORDER_MONEY} WHERE EXISTS "
    "(SELECT 1 FROM orders_invoice i WHERE i.order_id = o.id AND i.kind = 'invoice')"
)


def billable_minor(order: dict, refunded_minor: int) -> int:
    """What the order's documents must come to: its total (a cancelled order's: what came in
    of it) less what its refunds (`refunded_minor`) gave back beyond the overpayment."""
    # Babel's CLDR decimals, the ones the product takes an amount in (JPY 0, EUR 2, KWD 3).
    total = int(Decimal(order["amount"]).scaleb(get_currency_precision(order["currency"])))
    paid = total if order["paid_minor"] is None else order["paid_minor"]
    owed = min(total, paid) if order["status"] == "cancelled" else total
    return owed - max(0, refunded_minor - max(0, paid - total))


def settlement_problems(invoices: list[dict], orders: list[dict], refunds: list[dict]) -> list[str]:
    """Per invoiced order, its documents' totals add up to its billable amount; no credit note
    for an order without an invoice; every credit note negative and against an invoice of its
    own order; the credit note of a refund at most one, of at most minus the refund."""
    refunded: dict[str, int] = defaultdict(int)
    for refund in refunds:
        refunded[refund["order_id"]] += refund["amount_minor"]
    billed: dict[str, int] = defaultdict(int)
    for document in invoices:
        billed[document["order_id"]] += document["total_minor"]
    invoiced = {document["order_id"] for document in invoices if document["kind"] == INVOICE}
    read = {order["id"]: order for order in orders}
    problems = []
    for order_id in sorted(invoiced):
        if order_id not in read:
            problems.append(f"order {order_id}: invoiced, yet not among the invoiced orders read")
            continue
        must = billable_minor(read[order_id], refunded[order_id])
        if billed[order_id] != must:
            problems.append(
                f"order {order_id}: its invoices and credit notes bill {billed[order_id]}, "
                f"its billable amount is {must} (refunded {refunded[order_id]})"
            )
    return problems + _credit_note_problems(invoices, invoiced) + _refund_problems(invoices, refunds)


def _credit_note_problems(invoices: list[dict], invoiced: set[str]) -> list[str]:
    """Each credit note: of an invoiced order, negative, correcting an invoice of its order."""
    by_id = {document["id"]: document for document in invoices}
    notes: dict[str, int] = defaultdict(int)
    problems = []
    for note in (document for document in invoices if document["kind"] == CREDIT_NOTE):
        what = f"credit note {note['series']}/{note['number']} of order {note['order_id']}"
        notes[note["order_id"]] += 1
        if note["total_minor"] >= 0:
            problems.append(f"{what}: of {note['total_minor']}, not negative")
        corrected = by_id.get(note["corrects_id"] or "")
        if note["order_id"] in invoiced and (
            corrected is None or corrected["kind"] != INVOICE or corrected["order_id"] != note["order_id"]
        ):
            problems.append(f"{what}: corrects {note['corrects_id']}, not an invoice of its order")
    problems += [
        f"order {order_id}: {n} credit note(s), no invoice"
        for order_id, n in sorted(notes.items())
        if order_id not in invoiced
    ]
    return problems


def _refund_problems(invoices: list[dict], refunds: list[dict]) -> list[str]:
    """A credit note naming a refund: one at most per refund, of the refund's order, of at most
    minus its amount (less when part of it returned the overpayment)."""
    by_id = {refund["id"]: refund for refund in refunds}
    named: dict[str, list[dict]] = defaultdict(list)
    for document in invoices:
        if document["kind"] == CREDIT_NOTE and document["refund_id"]:
            named[document["refund_id"]].append(document)
    problems = []
    for refund_id, notes in sorted(named.items()):
        refund = by_id.get(refund_id)
        if refund is None:
            problems.append(f"refund {refund_id}: named by {len(notes)} credit note(s), not found")
            continue
        if len(notes) > 1:
            problems.append(f"refund {refund_id} of order {refund['order_id']}: {len(notes)} credit notes")
        for note in notes:
            if note["order_id"] != refund["order_id"]:
                problems.append(f"refund {refund_id}: a credit note of order {note['order_id']}, not its own")
            if note["total_minor"] < -refund["amount_minor"]:
                problems.append(
                    f"refund {refund_id}: a credit note of {note['total_minor']}, "
                    f"the refund is of {refund['amount_minor']}"
                )
    return problems
