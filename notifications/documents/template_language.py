"""The template language of the invoices' and credit notes' PDF template: the emails' language
(content/template_language.py, which says why each tag is bounded as it is), over the
document's own lists, and without layouts: the template is one whole HTML page, and nothing
else (the site's templates, the emails' layouts) can become part of it."""

from notifications.content.template_language import COMMON_TAGS, TemplateLanguage, library_of

# The lists a `{% for %}` may go over, each bounded by the API: an order's lines (250), its
# discounts (20), its rates (one per line at most), a refund's lines (those of the order).
DOCUMENT_LOOPABLE = ("document.lines", "document.refunded_lines", "document.discounts", "document.rates")
# A document's HTML, rendered: the shipped template renders the largest invoice the API allows
# (250 lines, names and SKUs at their longest) to 107,440 characters, 371,440 if each of their
# characters is escaped (&amp;).
DOCUMENT_HTML_MAX_CHARS = 1_000_000
DOCUMENT_SUMMARY = (
    "{% load i18n %}, {% translate %} and {% blocktranslate %}, {% if %}, {% for %} over "
    + ", ".join(DOCUMENT_LOOPABLE)
    + " (not nested), variables, and no filters"
)

register = library_of("invoice", DOCUMENT_LOOPABLE, layouts=())
DOCUMENT_LANGUAGE = TemplateLanguage(
    library=__name__,
    allowed_tags=COMMON_TAGS,
    summary=DOCUMENT_SUMMARY,
    what="invoice",
    values_doc="docs/orders.md",
    rendered_max_chars=DOCUMENT_HTML_MAX_CHARS,
)
