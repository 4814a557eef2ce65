"""The daily reconciliation: what the shop accepted against what its emails became.

- ledger.py: per day, email kind and currency, the counts and order amounts accepted against
  those that reached their end (sent, or closed without an email by a rule or a person);
- findings.py: each email behind a difference (missing, stuck, unhandled, with a person);
- provider_evidence.py: the provider's delivery events against our `sent` rows;
- invoice_findings.py, invoice_numbering.py: the invoices and credit notes, as an accountant
  checks them: an order without the invoice it should have, an order whose documents do not
  add up to what it owes, a series with a gap or a number twice;
- documents.py: the invoices and credit notes issued, counted per day, kind and currency;
- mismatches.py: every finding kept as one ReconcileMismatch with an owner from the
  reviewers group and a due date, closed when it is gone or by a person with a comment.

The run itself (and the repair) is run.py; the admin's screens of its reports and
mismatches are admin.py.
"""
