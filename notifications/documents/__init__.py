"""The orders' invoices and credit notes as PDF files (pdf.py): rendered once from their frozen
data and kept byte for byte, attached to the email that carries them (attached.py) and served by
the API and the admin. Their template (template.py) is the shipped one or a version published in
the admin, in a language of its own (template_language.py) over plain values (context.py);
a draft is checked against a sample invoice and credit note (template_check.py, samples.py)
before it is saved; layout.py lays out the HTML, fetching nothing, and page_text.py reads what
its pages show, where the legal elements are looked for (legal_elements.py)."""
