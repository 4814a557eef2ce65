"""The orders' invoices and credit notes as PDF files (pdf.py): rendered once from their frozen
data and kept byte for byte, attached to the email that carries them and served by the API and
the admin."""
