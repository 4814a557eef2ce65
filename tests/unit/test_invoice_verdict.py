"""The drill's verdict on invoices and credit notes can fail: handed rows of a run that went
wrong (a number skipped or given twice, a paid order without its invoice, a refund without its
credit note or with a wrong one, an email without its PDF or sent twice), it says so; handed a
clean one, it passes and counts each kind."""

from dataclasses import replace

from tools.drill.invoice_verdict import InvoiceRows, invoice_report_rows, invoice_summary, invoice_verdict
from tools.drill.verdict import Verdict

PAID, SHORT, UNPAID = "order-paid", "order-short", "order-unpaid"
REFUND = "refund-1"


def _invoice(number: int, **fields) -> dict:
    row = {
        "id": f"invoice-{number}",
        "order_id": PAID,
        "kind": "invoice",
        "series": "api",
        "number": number,
        "total_minor": 5000,
        "version_number": 1,
        "refund_id": None,
        "email_kind": "order_confirmation",
        "email_subject_id": None,
        "pdf_sha256": f"sha-{number}",
    }
    return row | fields


def _credit_note(number: int, **fields) -> dict:
    note = {"kind": "credit_note", "total_minor": -1500, "refund_id": REFUND, "email_kind": "order_refund"}
    return _invoice(number, **note | {"email_subject_id": REFUND} | fields)


def _email(kind: str, key: str, subject: str | None = None, status: str = "sent") -> dict:
    return {"order_id": PAID, "kind": kind, "subject_id": subject, "status": status, "idempotency_key": key}


def _message(key: str, *hashes: str) -> dict:
    attachments = [{"filename": f"{h}.pdf", "content_type": "application/pdf", "sha256": h} for h in hashes]
    return {"idempotency_key": key, "to": ["a@example.com"], "subject": "s", "attachments": attachments}


def _rows(**changes) -> InvoiceRows:
    """A clean run: a paid order with content, invoiced on its confirmation, one refund with
    its credit note on the refund's email; a short-body order paid (no invoice) and an order
    never paid (none)."""
    rows = InvoiceRows(
        invoices=[_invoice(1), _credit_note(2)],
        counters=[{"series": "api", "next_number": 3}],
        orders=[
            {"id": PAID, "content_version": 1, "paid": True},
            {"id": UNPAID, "content_version": 1, "paid": False},
            {"id": SHORT, "content_version": None, "paid": False},
        ],
        refunds=[{"id": REFUND, "order_id": PAID, "amount_minor": 1500}],
        emails=[_email("order_confirmation", "key-c"), _email("order_refund", "key-r", REFUND)],
    )
    return replace(rows, **changes)


MESSAGES = [_message("key-c", "sha-1"), _message("key-r", "sha-2")]


def test_a_clean_run_passes_and_counts_each_kind():
    verdict = invoice_verdict(_rows(), MESSAGES)
    assert verdict.passed, verdict.problems
    assert verdict.by_kind == {
        "invoice": {"count": 1, "total_minor": 5000},
        "credit_note": {"count": 1, "total_minor": -1500},
    }
    assert (verdict.series, verdict.emails_with_documents) == (1, 2)


def test_a_gap_in_a_series_fails_it():
    rows = _rows(invoices=[_invoice(1), _credit_note(3)], counters=[{"series": "api", "next_number": 4}])
    verdict = invoice_verdict(rows, [_message("key-c", "sha-1"), _message("key-r", "sha-3")])
    assert not verdict.passed
    assert verdict.problems == ["series api: numbers missing (a gap): 2"]


def test_a_number_given_twice_fails_it():
    invoices = [_invoice(1), _credit_note(2), _invoice(2, series="api", order_id=PAID, version_number=2)]
    verdict = invoice_verdict(_rows(invoices=invoices), MESSAGES)
    assert "series api: numbers given twice: 2" in verdict.problems


def test_a_number_the_counter_gave_that_no_document_holds_fails_it():
    verdict = invoice_verdict(_rows(counters=[{"series": "api", "next_number": 4}]), MESSAGES)
    assert verdict.problems == ["series api: its counter gave 3 numbers, no document holds the last"]


def test_each_series_is_numbered_on_its_own():
    shop = "shop-1"
    rows = _rows(
        invoices=[
            _invoice(1),
            _credit_note(2),
            _invoice(1, series=shop, order_id="order-shop", email_kind=""),
        ],
        orders=[*_rows().orders, {"id": "order-shop", "content_version": 1, "paid": True}],
        counters=[{"series": "api", "next_number": 3}, {"series": shop, "next_number": 2}],
    )
    verdict = invoice_verdict(rows, MESSAGES)
    assert verdict.passed, verdict.problems
    assert (verdict.series, verdict.by_kind["invoice"]["count"]) == (2, 2)


def test_a_paid_order_with_content_without_an_invoice_fails_it():
    rows = _rows(invoices=[], counters=[], refunds=[])
    verdict = invoice_verdict(rows, MESSAGES)
    assert verdict.problems == [f"order {PAID}: paid with content, no invoice"]


def test_two_invoices_of_one_content_version_or_one_of_an_unpaid_order_fail_it():
    invoices = [_invoice(1), _credit_note(2), _invoice(3, email_kind=""), _invoice(4, order_id=UNPAID)]
    verdict = invoice_verdict(_rows(invoices=invoices, counters=[]), MESSAGES)
    assert f"order {PAID}: 2 invoices of its content version 1" in verdict.problems
    assert f"order {UNPAID}: never paid, yet 1 invoice(s)" in verdict.problems


def test_a_refund_of_an_invoiced_order_without_its_credit_note_or_with_two_fails_it():
    without = invoice_verdict(_rows(invoices=[_invoice(1)], counters=[]), MESSAGES)
    assert without.problems == [f"refund {REFUND} of invoiced order {PAID}: 0 credit notes"]
    twice = invoice_verdict(
        _rows(invoices=[_invoice(1), _credit_note(2), _credit_note(3)], counters=[]), MESSAGES
    )
    assert f"refund {REFUND} of invoiced order {PAID}: 2 credit notes" in twice.problems


def test_a_credit_note_not_of_minus_its_refund_fails_it():
    verdict = invoice_verdict(_rows(invoices=[_invoice(1), _credit_note(2, total_minor=-1400)]), MESSAGES)
    assert verdict.problems == [f"refund {REFUND}: a credit note of -1400, the refund is of 1500"]


def test_a_refund_of_an_order_without_an_invoice_needs_no_credit_note():
    rows = _rows(refunds=[*_rows().refunds, {"id": "refund-2", "order_id": SHORT, "amount_minor": 100}])
    assert invoice_verdict(rows, MESSAGES).passed


def test_an_email_without_its_pdf_or_sent_twice_fails_it():
    other_pdf = invoice_verdict(_rows(), [_message("key-c", "sha-other"), _message("key-r", "sha-2")])
    assert other_pdf.problems == ["invoice api/1 on its order_confirmation: its PDF (sha-1) is not attached"]
    twice = invoice_verdict(_rows(), [*MESSAGES, _message("key-r", "sha-2")])
    assert twice.problems == [
        "credit_note api/2 on its order_refund: the provider has 2 messages under its key"
    ]
    lost = invoice_verdict(_rows(), MESSAGES[:1])
    assert lost.problems == [
        "credit_note api/2 on its order_refund: the provider has 0 messages under its key"
    ]


def test_an_email_not_sent_or_a_document_not_emailed_is_not_looked_for():
    emails = [
        _email("order_confirmation", "key-c", status="skipped"),
        _email("order_refund", "key-r", REFUND),
    ]
    verdict = invoice_verdict(_rows(emails=emails), MESSAGES[1:])
    assert verdict.passed, verdict.problems
    assert verdict.emails_with_documents == 1
    later = invoice_verdict(_rows(invoices=[_invoice(1, email_kind=""), _credit_note(2)]), MESSAGES[1:])
    assert later.passed, later.problems


def test_its_problems_fail_the_drills_verdict_and_its_counts_are_in_the_report():
    rows = _rows(invoices=[_invoice(1)], counters=[])
    summary, faults, problems = invoice_summary(invoice_verdict(rows, MESSAGES))
    assert (faults, summary["problems"]) == (1, 1)
    assert problems == [f"refund {REFUND} of invoiced order {PAID}: 0 credit notes"]
    assert not Verdict(invoice_faults=faults).passed
    assert Verdict().passed
    report = dict(invoice_report_rows(summary))
    assert report["invoices / credit notes (sum of their totals, minor units)"] == "1 (5000) / 0 (0)"
    assert invoice_report_rows({}) == []
