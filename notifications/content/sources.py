"""Which template text an email is rendered from: the version published in the admin for its
kind and language, or else the shipped templates under
notifications/templates/notifications/email/<kind>/ (subject.txt, body.txt, body.html).

The invoices' and credit notes' PDF template is one more kind, DOCUMENT_KIND, of its HTML
alone (its subject and text are empty): published in the admin the same way, else the shipped
notifications/templates/notifications/documents/invoice.html (documents/template.py)."""

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from notifications.content.errors import TemplateMissing
from notifications.models import EmailTemplateVersion

TEMPLATE_ROOT = Path(__file__).resolve().parent.parent / "templates"
SHIPPED_DIR = TEMPLATE_ROOT / "notifications" / "email"
PART_FILES = {"subject": "subject.txt", "text": "body.txt", "html": "body.html"}
DOCUMENT_KIND = "invoice_document"  # no Notification.Kind: a document, never an email of its own
SHIPPED_DOCUMENT = TEMPLATE_ROOT / "notifications" / "documents" / "invoice.html"


@dataclass(frozen=True)
class TemplateSource:
    kind: str
    locale: str
    subject: str
    text: str
    html: str
    version: EmailTemplateVersion | None = None  # None: the shipped templates, or a new draft
    draft: bool = False  # text written in the admin, checked before it becomes a version

    @property
    def label(self) -> str:
        if self.draft:
            return f"the new {self.kind} ({self.locale}) draft"
        if self.version is None:
            return f"the shipped {self.kind} template"
        return f"{self.kind} ({self.locale}) version {self.version.number}"


def shipped_source(kind: str, locale: str) -> TemplateSource:
    parts = _shipped_parts(kind)
    return TemplateSource(
        kind=kind, locale=locale, subject=parts["subject"], text=parts["text"], html=parts["html"]
    )


@cache
def _shipped_parts(kind: str) -> dict[str, str]:
    """The shipped templates are read once per process, like the code they ship with (every
    email read three files before: a tenth of a millisecond each time). A missing one is not
    remembered: its error comes again until the file is there."""
    if kind == DOCUMENT_KIND:
        return {"subject": "", "text": "", "html": SHIPPED_DOCUMENT.read_text(encoding="utf-8")}
    folder = SHIPPED_DIR / kind
    parts = {}
    for part, filename in PART_FILES.items():
        path = folder / filename
        if not path.is_file():
            raise TemplateMissing(
                f"There is no {part} template for the email kind {kind!r}: "
                f"add notifications/templates/notifications/email/{kind}/{filename}."
            )
        parts[part] = path.read_text(encoding="utf-8")
    return parts


def version_source(version: EmailTemplateVersion) -> TemplateSource:
    return TemplateSource(
        kind=version.kind,
        locale=version.locale,
        subject=version.subject,
        text=version.text,
        html=version.html,
        version=version,
    )


def live_version(kind: str, locale: str) -> EmailTemplateVersion | None:
    return EmailTemplateVersion.objects.filter(
        kind=kind, locale=locale, published_at__isnull=False, retired_at__isnull=True
    ).first()


def live_source(kind: str, locale: str) -> TemplateSource:
    version = live_version(kind, locale)
    return version_source(version) if version is not None else shipped_source(kind, locale)
