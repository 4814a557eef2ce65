"""The forms of the email wording admin: which email and language a new version is for, and
the version itself, refused in plain words when it does not render."""

from typing import Any, ClassVar

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from notifications.content.errors import RenderError
from notifications.content.overrides import override_check
from notifications.content.render_limits import TEMPLATE_MAX_CHARS
from notifications.content.template_language import ALLOWED_SUMMARY
from notifications.models import EmailTemplateVersion, Notification

MONOSPACE = {"style": "font-family: monospace; width: 100%; max-width: 1000px"}
LANGUAGE_NOTE = (
    f" Each part of an email template may use {ALLOWED_SUMMARY}, "
    f"and has at most {TEMPLATE_MAX_CHARS:,} characters."
)


class DraftStartForm(forms.Form):
    """Step one of a new version: the email and the language (from the query string)."""

    kind = forms.ChoiceField(choices=Notification.Kind.choices, label="Email")
    locale = forms.ChoiceField(choices=settings.LANGUAGES, label="Language")


def draft_start_of(request: HttpRequest) -> tuple[str, str] | None:
    form = DraftStartForm(request.GET)
    return (form.cleaned_data["kind"], form.cleaned_data["locale"]) if form.is_valid() else None


class DraftForm(forms.ModelForm):
    """Step two: the wording, pre-filled; email and language are fixed by step one."""

    start: ClassVar[tuple[str, str] | None] = None  # set per request by the admin's get_form

    kind = forms.ChoiceField(choices=Notification.Kind.choices, label="Email")
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

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                override_check(
                    kind=data["kind"],
                    locale=data["locale"],
                    subject=data["subject"],
                    text=data["text"],
                    html=data["html"],
                )
            except RenderError as exc:
                raise ValidationError(f"This draft is refused and was not saved: {exc}") from exc
        return data
