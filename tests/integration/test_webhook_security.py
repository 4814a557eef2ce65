"""Who may post delivery events: only the configured provider's webhook exists; it refuses a
request it cannot verify and stores nothing; production refuses to start while it has no
secret; an event of another ESP is refused. The attack these close: a forged Postmark spam
complaint or bounce naming one of our emails' keys, which would suppress the customer's
address or settle an email waiting for review as sent."""

import json

import pytest
from anymail import urls as anymail_urls
from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.signals import AnymailTrackingEvent, tracking
from django.core import checks
from django.test import Client
from django.urls import URLPattern

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import Notification, ProviderEvent, Suppression
from tests.factories import DeliveryAttemptFactory, NotificationFactory
from tests.integration.delivery_webhook_requests import (
    ENDPOINTS,
    hard_bounce,
    postmark_record,
    provider_configure,
    svix_headers,
    webhook_post,
)

pytestmark = pytest.mark.django_db

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
# Every path Anymail offers (its tracking and inbound views), ours, and one nobody serves.
EVERY_WEBHOOK_PATH = sorted(
    {"/webhooks/resend/", "/webhooks/nothing/", "/webhooks/anymail/mailgun/inbound_mime/"}
    | {
        f"/webhooks/anymail/{pattern.pattern}"
        for pattern in anymail_urls.urlpatterns
        if isinstance(pattern, URLPattern) and "(" not in str(pattern.pattern)
    }
)


def _apply_all() -> list[str]:
    events = OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED).order_by("created_at")
    return [event_dispatch(raw_envelope=event.payload, delivery=DELIVERY) for event in events]


def _waiting_for_review() -> Notification:
    notification = NotificationFactory.create(needs_review=True, provider="anymail")
    DeliveryAttemptFactory.create(notification=notification, outcome="unknown")
    return notification


def _nothing_changed(*notifications: Notification) -> None:
    assert ProviderEvent.objects.count() == 0
    assert _apply_all() == []
    assert Suppression.objects.count() == 0
    for notification in notifications:
        before = notification.status
        notification.refresh_from_db()
        assert (notification.status, notification.delivery_status) == (before, "")


@pytest.mark.parametrize("configured", [*ENDPOINTS, "smtp"])
def test_only_the_configured_providers_webhook_exists(settings, configured):
    if configured == "smtp":
        settings.MAIL_PROVIDER, own = "smtp", None  # an SMTP server posts no events
    else:
        own = provider_configure(settings, configured)
    # when
    answers = {path: webhook_post(path, b"{}").status_code for path in EVERY_WEBHOOK_PATH}
    # then
    assert {path for path, status in answers.items() if status != 404} == ({own} if own else set())
    assert len(answers) > 25  # every ESP Anymail covers was tried


@pytest.mark.parametrize(
    ("record_type", "fields"),
    [("SpamComplaint", {"Type": "SpamComplaint"}), ("Bounce", {"Type": "HardBounce"})],
)
@pytest.mark.parametrize("secret", [False, True], ids=["without a secret", "with its basic auth set"])
def test_a_forged_postmark_event_naming_our_emails_keys_changes_nothing(
    settings, record_type, fields, secret
):
    # given Postmark as the provider, and two emails whose keys the forger learnt
    path = provider_configure(settings, "postmark", secret=secret)
    sent = NotificationFactory.create(status="sent", provider="anymail")
    waiting = _waiting_for_review()
    # when: records posted without credentials (Anymail alone would accept them without a secret)
    answers = [
        webhook_post(path, postmark_record(record_type, n.idempotency_key, n.order.customer_email, **fields))
        for n in (sent, waiting)
    ]
    # then
    assert [a.status_code for a in answers] == [503 if not secret else 400] * 2
    if not secret:
        assert "ANYMAIL_WEBHOOK_SECRET" in answers[0].json()["detail"]
    _nothing_changed(sent, waiting)


@pytest.mark.parametrize("record_type", ["SpamComplaint", "Bounce"])
def test_postmark_events_are_not_heard_when_another_provider_sends(settings, record_type):
    settings.MAIL_PROVIDER = "resend"
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": ""}
    sent = NotificationFactory.create(status="sent", provider="resend")
    record = postmark_record(record_type, sent.idempotency_key, sent.order.customer_email, Type=record_type)
    # when
    response = webhook_post("/webhooks/anymail/postmark/tracking/", record)
    # then
    assert response.status_code == 404
    _nothing_changed(sent)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_each_endpoint_stores_a_genuine_bounce_and_refuses_an_unverified_one(settings, endpoint):
    path = provider_configure(settings, endpoint)
    sent, forged_target = (NotificationFactory.create(status="sent", provider=endpoint) for _ in range(2))
    # when: a bounce without the ESP's credentials
    body, headers = hard_bounce(
        endpoint, key=forged_target.idempotency_key, address=forged_target.order.customer_email, genuine=False
    )
    forged = webhook_post(path, body, headers)
    # then
    assert 400 <= forged.status_code < 500, forged.content
    _nothing_changed(forged_target)
    # and the same bounce with them is stored and applied (so the refusal was for the credentials)
    body, headers = hard_bounce(
        endpoint, key=sent.idempotency_key, address=sent.order.customer_email, genuine=True
    )
    assert webhook_post(path, body, headers).status_code == 200
    assert _apply_all() == ["delivery status bounced; address suppressed"]
    assert Suppression.objects.get().address == sent.order.customer_email


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_an_endpoint_without_its_secret_answers_503_with_the_reason_and_stores_nothing(settings, endpoint):
    path = provider_configure(settings, endpoint, secret=False)
    sent = NotificationFactory.create(status="sent", provider=endpoint)
    body, headers = hard_bounce(
        endpoint, key=sent.idempotency_key, address=sent.order.customer_email, genuine=True
    )
    # when
    response = webhook_post(path, body, headers)
    # then
    assert response.status_code == 503
    assert "cannot verify" in response.json()["detail"]
    _nothing_changed(sent)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_production_refuses_to_start_while_the_configured_webhook_has_no_secret(settings, endpoint):
    settings.DJANGO_ENV = "production"
    provider_configure(settings, endpoint, secret=False)
    # when
    refused = [e for e in checks.run_checks() if e.id == "notifications.E006"]
    provider_configure(settings, endpoint)
    accepted = [e for e in checks.run_checks() if e.id == "notifications.E006"]
    # then
    assert [e.level for e in refused] == [checks.ERROR]
    assert ENDPOINTS[endpoint][0].removeprefix("/webhooks/") in refused[0].msg
    assert accepted == []


@pytest.mark.parametrize("character", ["\\u0000", "\\ud800"], ids=["a NUL", "a lone surrogate"])
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_genuine_bounce_whose_words_hold_a_nul_or_a_lone_surrogate_is_stored_and_suppresses(
    settings, endpoint, character
):
    # given: the remote mail server's words (chosen by whoever runs the recipient's domain), as
    # the ESP passes them on, with a character no text column holds (written as its JSON escape)
    path = provider_configure(settings, endpoint)
    sent = NotificationFactory.create(status="sent", provider=endpoint)
    body, headers = hard_bounce(
        endpoint, key=sent.idempotency_key, address=sent.order.customer_email, genuine=True
    )
    # SES's event is JSON inside the SNS envelope's string: its escape is escaped once more
    written = character.replace("\\", "\\\\") if endpoint == "ses" else character
    for words in (b"does not exist", b"no such user"):
        body = body.replace(words, words + written.encode())
    assert written.encode() in body
    body, headers = _signed_again(endpoint, body, headers)
    # when
    response = webhook_post(path, body, headers)
    # then: stored, the character replaced by U+FFFD, and applied: the address is suppressed
    assert response.status_code == 200, response.content
    stored = ProviderEvent.objects.get()
    assert "\ufffd" in stored.description + json.dumps(stored.payload, ensure_ascii=False)
    assert _apply_all() == ["delivery status bounced; address suppressed"]
    assert Suppression.objects.get().address == sent.order.customer_email


def _signed_again(endpoint: str, body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    """Resend's Svix signature covers the body: sign the changed body again."""
    if endpoint != "resend":
        return body, headers
    return body, svix_headers(body)


@pytest.mark.parametrize("configured", ["resend", "brevo", "postmark"])
def test_an_event_of_an_esp_that_is_not_the_configured_one_is_refused_before_it_is_stored(
    settings, configured
):
    provider_configure(settings, configured)
    sent = NotificationFactory.create(status="sent", provider=configured)
    event = AnymailTrackingEvent(
        event_type="complained",
        esp_event={"RecordType": "SpamComplaint"},
        recipient=sent.order.customer_email,
        metadata={"idempotency_key": sent.idempotency_key},
    )
    # when: Anymail's Mailgun view (never mounted here) would send its signal so
    with pytest.raises(AnymailWebhookValidationFailure, match="Mailgun events are refused"):
        tracking.send(sender=object, event=event, esp_name="Mailgun")
    # then
    _nothing_changed(sent)


@pytest.mark.parametrize("endpoint", ["resend", "postmark"])
@pytest.mark.parametrize("method", ["get", "put", "patch", "delete", "options"])
def test_the_configured_webhook_takes_only_posts(settings, endpoint, method):
    path = provider_configure(settings, endpoint)
    response = getattr(Client(raise_request_exception=False), method)(path)
    assert response.status_code == 405
    assert response["Allow"] == "POST, HEAD"
    assert ProviderEvent.objects.count() == 0


@pytest.mark.parametrize(("endpoint", "answer"), [("resend", 405), ("postmark", 200)])
def test_a_head_of_the_configured_webhook_stores_nothing(settings, endpoint, answer):
    # Some ESPs check the address they are given with a HEAD before they post to it: Anymail's
    # views answer it; Resend's takes posts only.
    path = provider_configure(settings, endpoint)
    response = Client(raise_request_exception=False).head(path)
    assert response.status_code == answer
    assert ProviderEvent.objects.count() == 0


@pytest.mark.parametrize(
    "secret", ["hooks:short", "<user>:<password>", "hooks:<a-long-random-password-here>", ":" + "p" * 24]
)
def test_a_guessable_or_placeholder_basic_auth_is_no_secret(settings, secret):
    # given Postmark, whose only check is the basic auth of ANYMAIL_WEBHOOK_SECRET
    settings.DJANGO_ENV = "production"
    path = provider_configure(settings, "postmark")
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": secret}
    # when
    refused = [e for e in checks.run_checks() if e.id == "notifications.E006"]
    answer = webhook_post(path, b"{}")
    # then production does not start, and the endpoint says why and stores nothing
    assert "a password of at least 16 characters" in refused[0].msg
    assert answer.status_code == 503
    assert ProviderEvent.objects.count() == 0
