"""The forms of the email wording admin: which email (or the invoice template) and language a
new version is for, and the version itself, refused in plain words when it does not render."""

from typing import Any, ClassVar, cast

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from notifications.content.errors import RenderError
from notifications.content.overrides import override_check
from notifications.content.render_limits import TEMPLATE_MAX_CHARS
from notifications.content.sources import DOCUMENT_KIND
from notifications.content.template_language import ALLOWED_SUMMARY
from notifications.documents.template_language import DOCUMENT_SUMMARY
from notifications.models import EmailTemplateVersion, Notification

MONOSPACE = {"style": "font-family: monospace; width: 100%; max-width: 1000px"}
LANGUAGE_NOTE = (
    f" Each part of an email template may use {ALLOWED_SUMMARY}, "
    f"and has at most {TEMPLATE_MAX_CHARS:,} characters."
)
# The invoice template is one more kind of version, of its HTML alone (no subject, no text).
TEMPLATE_KINDS = [*Notification.Kind.choices, (DOCUMENT_KIND, "Invoice and credit note (PDF)")]
DOCUMENT_FIELDS = ["kind", "locale", "html", "comment"]
DOCUMENT_HELP = (
    "The HTML of every invoice and credit note in this language (the shipped one is "
    "notifications/documents/invoice.html), laid out as a PDF by WeasyPrint. It is one whole page: "
    f"it may use {DOCUMENT_SUMMARY}, and has at most {TEMPLATE_MAX_CHARS:,} characters. Nothing is "
    "fetched from elsewhere (no image, stylesheet or font by its address): put the CSS in a <style>."
)


def template_kind_label(kind: str) -> str:
    return dict(TEMPLATE_KINDS).get(kind, kind)


class DraftStartForm(forms.Form):
    """Step one of a new version: the email and the language (from the query string). Shown,
    it offers the `kinds` its user may write; read back, any kind (the add page checks it)."""

    kind = forms.ChoiceField(choices=TEMPLATE_KINDS, label="Email or document")
    locale = forms.ChoiceField(choices=settings.LANGUAGES, label="Language")

    def __init__(self, *args: Any, kinds: list[tuple[str, str]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if kinds is not None:
            cast(forms.ChoiceField, self.fields["kind"]).choices = kinds


def draft_start_of(request: HttpRequest) -> tuple[str, str] | None:
    form = DraftStartForm(request.GET)
    return (form.cleaned_data["kind"], form.cleaned_data["locale"]) if form.is_valid() else None


class DraftForm(forms.ModelForm):
    """Step two: the wording, pre-filled; email and language are fixed by step one. The invoice
    template's form has no subject and no text (the admin leaves them out of its fields)."""

    start: ClassVar[tuple[str, str] | None] = None  # set per request by the admin's get_form

    kind = forms.ChoiceField(choices=TEMPLATE_KINDS, label="Email")
    locale = forms.ChoiceField(choices=settings.LANGUAGES, label="Language")

    class Meta:
        model = EmailTemplateVersion
        fields = ["kind", "locale", "subject", "text", "html", "comment"]
        labels = {"text": "Text part", "html": "HTML part", "comment": "Why the wording changes"}
        help_texts = {
            "subject": "One line, like the shipped subject.txt." + LANGUAGE_NOTE,
            "text": "The plain-text part (body.txt); it may extend notifications/email/base.txt.",
            "html": "The HTML part (body.html); it may extend notifications/email/base.html.",
        }
        widgets = {
            "subject": forms.TextInput(attrs=MONOSPACE),
            "text": forms.Textarea(attrs={**MONOSPACE, "rows": 16}),
            "html": forms.Textarea(attrs={**MONOSPACE, "rows": 24}),
            "comment": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.start is not None:  # a disabled field takes its initial value, whatever is posted
            for name, value in zip(("kind", "locale"), self.start, strict=True):
                self.fields[name].initial = value
                self.fields[name].disabled = True
        if self.start is not None and self.start[0] == DOCUMENT_KIND:
            self.fields["html"].label = "HTML of the PDF"
            self.fields["html"].help_text = DOCUMENT_HELP

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                override_check(
                    kind=data["kind"],
                    locale=data["locale"],
                    subject=data.get("subject", ""),
                    text=data.get("text", ""),
                    html=data["html"],
                )
            except RenderError as exc:
                raise ValidationError(f"This draft is refused and was not saved: {exc}") from exc
        return data
