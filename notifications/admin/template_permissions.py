"""Who may write and who may publish (or retire) a version, by its kind. The emails' wording
and the invoice template are separate rights: an invoice is a legal record, its layout is not
given to whoever may change an email's words, nor the emails to whoever lays out invoices
(email_editors.py, invoice_template_editors.py). Seeing the versions is one right for both."""

from django.http import HttpRequest

from notifications.content.sources import DOCUMENT_KIND

EMAIL_WRITE = "notifications.add_emailtemplateversion"
EMAIL_PUBLISH = "notifications.publish_emailtemplateversion"
INVOICE_WRITE = "notifications.change_invoice_template"
INVOICE_PUBLISH = "notifications.publish_invoice_template"


def may_write(request: HttpRequest, kind: str) -> bool:
    """Whether the user may save a new version of `kind` (an email's, or the invoice template)."""
    return request.user.has_perm(INVOICE_WRITE if kind == DOCUMENT_KIND else EMAIL_WRITE)


def may_write_any(request: HttpRequest) -> bool:
    return request.user.has_perm(EMAIL_WRITE) or request.user.has_perm(INVOICE_WRITE)


def may_publish(request: HttpRequest, kind: str) -> bool:
    """Whether the user may publish a version of `kind`, or retire its live one."""
    return request.user.has_perm(INVOICE_PUBLISH if kind == DOCUMENT_KIND else EMAIL_PUBLISH)
