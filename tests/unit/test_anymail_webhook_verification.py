"""Whether an Anymail tracking webhook can verify its requests is Anymail's own rule
(notifications/providers/anymail_webhooks.py reads it): checked here against Anymail itself
for every ESP it has a tracking webhook for, so that an Anymail upgrade that changes the rule
fails here rather than opening an endpoint."""

import warnings

import pytest
from anymail import urls as anymail_urls
from anymail.exceptions import AnymailInsecureWebhookWarning
from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern

from notifications.providers.anymail_webhooks import AnymailTrackingWebhook, anymail_tracking_webhook

ESPS = sorted(
    str(pattern.name).removesuffix("_tracking_webhook")
    for pattern in anymail_urls.urlpatterns
    if isinstance(pattern, URLPattern) and str(pattern.name).endswith("_tracking_webhook")
)
BASIC_AUTH = "hooks:a-long-random-password"
# The ESPs whose view checks a signature whatever WEBHOOK_SECRET says, and the key it needs.
SIGNING_KEYS = {
    "mailgun": "MAILGUN_WEBHOOK_SIGNING_KEY",
    "mailersend": "MAILERSEND_SIGNING_SECRET",
    "mandrill": "MANDRILL_WEBHOOK_KEY",
    "postal": "POSTAL_WEBHOOK_KEY",
    "unisender_go": "UNISENDER_GO_API_KEY",
}


def _anymail_says_it_can_verify(esp: str) -> bool:
    callback = _webhook(esp).callback
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            callback.view_class(**callback.view_initkwargs)
        except ImproperlyConfigured:
            return False
    return not any(issubclass(w.category, AnymailInsecureWebhookWarning) for w in caught)


def test_every_esp_anymail_tracks_is_found():
    assert {"postmark", "brevo", "amazon_ses", "mailgun", "sendgrid", "resend"} <= set(ESPS)
    assert all(anymail_tracking_webhook(esp) is not None for esp in ESPS)


@pytest.mark.parametrize("esp", ESPS)
def test_without_any_secret_no_anymail_webhook_is_served(settings, esp):
    settings.ANYMAIL = {}
    assert _webhook(esp).verification_problems()
    if esp != "mandrill":  # Anymail builds Mandrill's view and refuses each POST instead
        assert not _anymail_says_it_can_verify(esp)


@pytest.mark.parametrize("esp", ESPS)
def test_basic_auth_is_enough_where_it_is_the_only_scheme_and_a_signing_key_where_the_esp_signs(
    settings, esp
):
    settings.ANYMAIL = {"WEBHOOK_SECRET": BASIC_AUTH}
    problems = _webhook(esp).verification_problems()
    assert bool(problems) == (esp in SIGNING_KEYS)
    assert _anymail_says_it_can_verify(esp) == (esp not in SIGNING_KEYS or esp == "mandrill")
    if esp in SIGNING_KEYS:
        settings.ANYMAIL = {SIGNING_KEYS[esp]: "a-signing-key"}
        assert _webhook(esp).verification_problems() == []
        assert _anymail_says_it_can_verify(esp)


def _webhook(esp: str) -> AnymailTrackingWebhook:
    webhook = anymail_tracking_webhook(esp)
    assert webhook is not None, f"Anymail has a tracking webhook for {esp}"
    return webhook
