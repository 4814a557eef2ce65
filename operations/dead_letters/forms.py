"""The forms of the "Dead letters" screen: its filter (the same fields as the command's
flags) and the action a person confirms."""

import uuid
from typing import Any, cast

from django import forms
from django.utils import timezone

from infra.durations import duration_parse
from messaging.registry import event_types, work_queue_names
from operations.dead_letters.batch import DeadLetterFilter, Verb

DISCARD_NEEDS_COMMENT = "A discard needs a comment: why these messages are thrown away (it is recorded)."


class DeadLetterFilterForm(forms.Form):
    queue = forms.ChoiceField(required=False, label="Queue")
    event_type = forms.ChoiceField(required=False, label="Event type")
    class_name = forms.CharField(
        required=False, label="Class", max_length=64, help_text="e.g. permanent, malformed, needs_review"
    )
    reason = forms.CharField(required=False, label="Words in the reason", max_length=200)
    older_than = forms.CharField(
        required=False, label="Older than", max_length=16, help_text="last dead-lettered before: 30m, 2h, 1d"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        any_choice = [("", "all")]
        queues, types = (
            cast(forms.ChoiceField, self.fields["queue"]),
            cast(forms.ChoiceField, self.fields["event_type"]),
        )
        queues.choices = any_choice + [(name, name) for name in work_queue_names()]
        types.choices = any_choice + [(name, name) for name in sorted(event_types())]

    def clean_older_than(self) -> str:
        value: str = self.cleaned_data["older_than"].strip()
        if value:
            try:
                duration_parse(value)
            except ValueError as exc:
                raise forms.ValidationError(f"Write {exc}.") from exc
        return value

    def dead_letter_filter(self) -> DeadLetterFilter:
        data = self.cleaned_data
        older = data["older_than"]
        return DeadLetterFilter(
            queue=data["queue"],
            event_type=data["event_type"],
            error_class=data["class_name"].strip(),
            words=data["reason"].strip(),
            older_than=timezone.now() - duration_parse(older) if older else None,
        )

    def query(self) -> dict[str, str]:
        """The filter as it was typed, to carry across pages and actions."""
        return {name: value for name, value in self.cleaned_data.items() if value}


class DeadLetterActionForm(forms.Form):
    verb = forms.ChoiceField(choices=[(Verb.REPLAY, "Replay"), (Verb.DISCARD, "Discard")])
    scope = forms.ChoiceField(
        choices=[("selected", "the selected messages"), ("matching", "all messages matching the filter")]
    )
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3}))
    include_needs_review = forms.BooleanField(
        required=False, label="Include emails that may have gone out (needs review)"
    )
    confirmed = forms.BooleanField(required=False)

    def __init__(self, data: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(data, *args, **kwargs)
        self.event_ids = frozenset(data.getlist("event_id")) if data is not None else frozenset()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for event_id in self.event_ids:
            try:
                uuid.UUID(event_id)
            except ValueError:
                raise forms.ValidationError(f"{event_id!r} is not an event id.") from None
        if cleaned.get("scope") == "selected" and not self.event_ids:
            raise forms.ValidationError("Select at least one dead letter, or act on all matching the filter.")
        return cleaned

    @property
    def chosen_verb(self) -> Verb:
        return Verb(self.cleaned_data["verb"])

    def missing_comment(self) -> bool:
        return self.chosen_verb == Verb.DISCARD and not self.cleaned_data["comment"].strip()

    def dead_letter_filter(self, matching: DeadLetterFilter) -> DeadLetterFilter:
        if self.cleaned_data["scope"] == "selected":
            return DeadLetterFilter(event_ids=self.event_ids)
        return matching
