"""The drill's verdict on invoices and credit notes can fail: handed rows of a run that went
wrong (a number skipped or given twice, a paid order without its invoice, documents that do not
add up to what the order must be billed, a credit note twice, of more than its refund or
against another order's invoice, an email without its PDF or sent twice), it says so; handed a
clean one (a return credited, an edit that credits and bills anew, an overpayment refunded
without a credit note), it passes and counts each kind."""

from dataclasses import replace
from decimal import Decimal

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
        "corrects_id": None,
        "email_kind": "order_confirmation",
        "email_subject_id": None,
        "pdf_sha256": f"sha-{number}",
    }
    return row | fields


def _credit_note(number: int, **fields) -> dict:
    note = {"kind": "credit_note", "total_minor": -1500, "refund_id": REFUND, "corrects_id": "invoice-1"}
    return _invoice(number, **note | {"email_kind": "order_refund", "email_subject_id": REFUND} | fields)


def _order(
    order_id: str = PAID, amount: str = "50.00", paid_minor: int | None = 5000, status: str = "paid"
) -> dict:
    """An invoiced order as the verdict reads it: what it holds now, what its payment took, and
    its status (a cancelled order bills only what it was paid)."""
    return {
        "id": order_id,
        "amount": Decimal(amount),
        "currency": "EUR",
        "paid_minor": paid_minor,
        "status": status,
    }


def _email(kind: str, key: str, subject: str | None = None, status: str = "sent") -> dict:
    return {"order_id": PAID, "kind": kind, "subject_id": subject, "status": status, "idempotency_key": key}


def _message(key: str, *hashes: str) -> dict:
    attachments = [{"filename": f"{h}.pdf", "content_type": "application/pdf", "sha256": h} for h in hashes]
    return {"idempotency_key": key, "to": ["a@example.com"], "subject": "s", "attachments": attachments}


def _rows(**changes) -> InvoiceRows:
    """A clean run: a paid order with content (50.00 EUR), invoiced on its confirmation, one
    refund of a returned item (15.00) with its credit note on the refund's email; a short-body
    order paid (no invoice) and an order never paid (none)."""
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
        invoiced_orders=[_order()],
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


def test_numbers_voided_after_a_restore_are_no_gap_and_a_counter_past_them_is_no_fault():
    # given: 3..5 went out on documents the restored database lost; the counter was moved past
    rows = _rows(
        invoices=[_invoice(1), _credit_note(2), _invoice(6, order_id=PAID, version_number=2, email_kind="")],
        counters=[{"series": "api", "next_number": 7}],
        voided=[{"series": "api", "first": 3, "last": 5}],
    )
    # then: no numbering problem (the second invoice of the version is another rule's)
    problems = invoice_verdict(rows, MESSAGES).problems
    assert not [problem for problem in problems if problem.startswith("series")], problems
    # a counter moved past the last document, all of it voided: no fault either
    voided_only = _rows(
        counters=[{"series": "api", "next_number": 10}], voided=[{"series": "api", "first": 3, "last": 9}]
    )
    assert invoice_verdict(voided_only, MESSAGES).passed


def test_a_voided_number_a_document_holds_too_is_given_twice():
    rows = _rows(voided=[{"series": "api", "first": 2, "last": 2}])
    assert "series api: numbers given twice: 2" in invoice_verdict(rows, MESSAGES).problems


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
            _invoice(1, id="shop-invoice-1", series=shop, order_id="order-shop", email_kind=""),
        ],
        orders=[*_rows().orders, {"id": "order-shop", "content_version": 1, "paid": True}],
        invoiced_orders=[_order(), _order("order-shop")],
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


def test_a_refund_of_a_returned_item_is_credited_by_one_note_of_minus_the_refund():
    # given: paid 5000, a return refunded 1500 (the clean run)
    rows = _rows()
    # when / then: its note of -1500 leaves 3500 billed, what it holds less the return
    assert [(d["kind"], d["total_minor"], d["refund_id"]) for d in rows.invoices] == [
        ("invoice", 5000, None),
        ("credit_note", -1500, REFUND),
    ]
    verdict = invoice_verdict(rows, MESSAGES)
    assert verdict.passed, verdict.problems


def test_an_edit_down_after_the_payment_then_a_refund_of_the_overpayment_needs_no_credit_note():
    # given: paid 5000, edited down to 35.00 (its invoice credited, a new one of 3500), then
    # the 1500 paid beyond it refunded: no invoice to correct
    edit = {"email_kind": "", "refund_id": None}
    invoices = [
        _invoice(1, email_kind=""),
        _credit_note(2, total_minor=-5000, **edit),
        _invoice(3, total_minor=3500, version_number=2, email_kind=""),
    ]
    rows = _rows(invoices=invoices, counters=[], invoiced_orders=[_order(amount="35.00")])
    # when
    verdict = invoice_verdict(rows, [])
    # then
    assert verdict.passed, verdict.problems
    # and a refund past the overpayment (500 of a return besides) is credited for that part
    beyond = [*invoices, _credit_note(4, total_minor=-500, corrects_id="invoice-3", email_kind="")]
    refund = {"id": REFUND, "order_id": PAID, "amount_minor": 2000}
    verdict = invoice_verdict(replace(rows, invoices=beyond, refunds=[refund]), [])
    assert verdict.passed, verdict.problems


def test_an_edit_after_a_return_credits_its_invoice_and_the_return_again_on_the_new_one():
    # given: the return credited (-1500), then an edit up to 60.00: what is left of the first
    # invoice credited, a new invoice of 6000 and the return credited against it, no refund named
    edit = {"email_kind": "", "refund_id": None}
    invoices = [
        _invoice(1),
        _credit_note(2),
        _credit_note(3, total_minor=-3500, **edit),
        _invoice(4, total_minor=6000, version_number=2, email_kind=""),
        _credit_note(5, total_minor=-1500, corrects_id="invoice-4", **edit),
    ]
    rows = _rows(invoices=invoices, counters=[], invoiced_orders=[_order(amount="60.00")])
    # when / then: 4500 billed, what it holds less the return
    verdict = invoice_verdict(rows, MESSAGES)
    assert verdict.passed, verdict.problems


def test_a_credit_note_missing_fails_it():
    verdict = invoice_verdict(_rows(invoices=[_invoice(1)], counters=[]), MESSAGES)
    assert verdict.problems == [
        f"order {PAID}: its invoices and credit notes bill 5000, its billable amount is 3500 (refunded 1500)"
    ]


def test_a_document_twice_fails_it():
    twice = _rows(invoices=[_invoice(1), _credit_note(2), _credit_note(3, email_kind="")], counters=[])
    assert invoice_verdict(twice, MESSAGES).problems == [
        f"order {PAID}: its invoices and credit notes bill 2000, its billable amount is 3500 (refunded 1500)",
        f"refund {REFUND} of order {PAID}: 2 credit notes",
    ]
    invoiced_twice = _rows(invoices=[_invoice(1), _credit_note(2), _invoice(3, email_kind="")], counters=[])
    assert invoice_verdict(invoiced_twice, MESSAGES).problems == [
        f"order {PAID}: 2 invoices of its content version 1",
        f"order {PAID}: its invoices and credit notes bill 8500, its billable amount is 3500 (refunded 1500)",
    ]


def test_a_credit_note_of_more_than_its_refund_fails_it_and_of_less_misses_the_billable():
    more = invoice_verdict(_rows(invoices=[_invoice(1), _credit_note(2, total_minor=-1600)]), MESSAGES)
    assert f"refund {REFUND}: a credit note of -1600, the refund is of 1500" in more.problems
    less = invoice_verdict(_rows(invoices=[_invoice(1), _credit_note(2, total_minor=-1400)]), MESSAGES)
    assert less.problems == [
        f"order {PAID}: its invoices and credit notes bill 3600, its billable amount is 3500 (refunded 1500)"
    ]


def test_a_credit_note_of_an_order_without_an_invoice_or_against_another_orders_fails_it():
    stray = {"id": "refund-2", "order_id": SHORT, "amount_minor": 100}
    note = _credit_note(2, order_id=SHORT, refund_id="refund-2", total_minor=-100, email_kind="")
    refunds = [*_rows().refunds, stray]
    rows = _rows(invoices=[_invoice(1), _credit_note(3), note], refunds=refunds, counters=[])
    assert f"order {SHORT}: 1 credit note(s), no invoice" in invoice_verdict(rows, MESSAGES).problems
    other = _invoice(1, id="shop-invoice-1", series="shop", order_id="order-shop", email_kind="")
    note = _credit_note(2, corrects_id="shop-invoice-1")
    wrong = _rows(invoices=[_invoice(1), note, other], invoiced_orders=[_order(), _order("order-shop")])
    assert invoice_verdict(wrong, MESSAGES).problems == [
        f"credit note api/2 of order {PAID}: corrects shop-invoice-1, not an invoice of its order"
    ]


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
    assert problems == [
        f"order {PAID}: its invoices and credit notes bill 5000, its billable amount is 3500 (refunded 1500)"
    ]
    assert not Verdict(invoice_faults=faults).passed
    assert Verdict().passed
    report = dict(invoice_report_rows(summary))
    assert report["invoices / credit notes (sum of their totals, minor units)"] == "1 (5000) / 0 (0)"
    assert invoice_report_rows({}) == []


def test_a_cancelled_order_bills_only_what_came_in_of_it():
    # given an order paid 30.00 of its 50.00, then cancelled: its 15.00 refund credited
    cancelled = [_order(paid_minor=3000, status="cancelled")]
    uncredited = _rows(invoices=[_invoice(1), _credit_note(2)], counters=[], invoiced_orders=cancelled)
    # then the unpaid 20.00 must be credited too, or the documents bill what never came in
    assert invoice_verdict(uncredited, MESSAGES).problems == [
        f"order {PAID}: its invoices and credit notes bill 3500, its billable amount is 1500 (refunded 1500)"
    ]
    unpaid_part = _credit_note(3, total_minor=-2000, refund_id=None, email_kind="order_cancellation")
    credited = replace(uncredited, invoices=[_invoice(1), _credit_note(2), unpaid_part])
    assert invoice_verdict(credited, MESSAGES).passed, invoice_verdict(credited, MESSAGES).problems
