"""One test email to an address of the operator's choosing, through the configured provider:
the sample order rendered with today's live templates, the subject marked "[Test] ", a key of
its own (`test-<uuid4>`) and no order or notification behind it. Recorded as an operator
action, so a test send is as visible as any other thing a person did."""

import uuid
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from notifications.audit import action_finish, action_start
from notifications.content.context import sample_context
from notifications.content.errors import RenderError
from notifications.content.preview_files import PreviewRefused, email_kind_check, email_language_check
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import live_source
from notifications.models import OperatorAction
from notifications.providers.base import TEST_KEY_PREFIX, OutboundEmail, Outcome, SendResult
from notifications.providers.catalogue import ProviderNotConfigured, mail_provider

SUBJECT_PREFIX = "[Test] "  # nobody mistakes it for a customer's email


class SendRefused(Exception):
    """Nothing was sent: the address, kind, language or template is not usable as given."""


@dataclass(frozen=True)
class SentTestEmail:
    idempotency_key: str
    provider: str
    subject: str
    result: SendResult

    @property
    def accepted(self) -> bool:
        return self.result.outcome == Outcome.ACCEPTED

    def describe(self) -> str:
        result = self.result
        words = f"{result.outcome}"
        if result.provider_message_id:
            words += f", provider message id {result.provider_message_id}"
        if result.http_status is not None:
            words += f", HTTP {result.http_status}"
        if result.error_code or result.detail:
            words += f": {' '.join(part for part in (result.error_code, result.detail) if part)}"
        return words


def email_test_send(*, address: str, kind: str, locale: str, actor_name: str) -> SentTestEmail:
    try:
        validate_email(address)
        email_kind_check(kind)
        email_language_check(locale)
        rendered = _sample_render(kind, locale)
        provider = mail_provider()
    except ValidationError:
        raise SendRefused(f"{address!r} is not an email address.") from None
    except (PreviewRefused, RenderError, ProviderNotConfigured) as exc:
        raise SendRefused(str(exc)) from exc
    key = f"{TEST_KEY_PREFIX}{uuid.uuid4()}"
    email = OutboundEmail(
        idempotency_key=key,
        to=address,
        subject=SUBJECT_PREFIX + rendered.subject,
        text=rendered.text,
        html=rendered.html,
        event_id=str(uuid.uuid4()),  # no event behind it; the header still carries an id
    )
    record = action_start(
        action=OperatorAction.Action.TEST_SEND,
        actor_name=actor_name,
        comment=f"to {address}, {kind} ({locale}), key {key}",
    )
    sent = SentTestEmail(
        idempotency_key=key, provider=provider.name, subject=email.subject, result=provider.send(email)
    )
    action_finish(record, result=sent.describe())
    return sent


def _sample_render(kind: str, locale: str) -> RenderedEmail:
    return email_render(live_source(kind, locale), sample_context(kind, locale))
