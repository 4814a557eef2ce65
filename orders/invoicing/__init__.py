"""Invoices and credit notes of the orders: their numbers (numbering.py), what each shows
(document_data.py, from vat.py: each line's VAT and the totals per rate; parties.py: the
seller and the customer), and when each is issued (issue.py). Their PDFs are rendered by
documents/, a layer above."""
