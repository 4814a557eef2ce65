"""Anymail's tracking webhook of one ESP as a provider's delivery webhook: the providers that
hear from their ESP through Anymail (brevo, ses, anymail) each name theirs.

Anymail's own URL list (anymail/urls.py: `<esp>/tracking/`, named `<esp>_tracking_webhook`)
says where each ESP's view is; only the configured provider's is mounted, at that path under
/webhooks/anymail/. Whether the view can tell the ESP's requests from anyone else's is
Anymail's own rule, read in its source (django-anymail 15.2, anymail/webhooks/):

- Postmark, Brevo (SendinBlue), Mailjet, SparkPost and Amazon SES have basic auth only.
  AnymailBasicAuthMixin (base.py) accepts every request while WEBHOOK_SECRET is empty and
  only warns (AnymailInsecureWebhookWarning): that condition, `warn_if_no_basic_auth and not
  basic_auth`, is what we refuse.
- Resend and Mailtrap (SIGNING_SECRET) and SendGrid (TRACKING_WEBHOOK_VERIFICATION_KEY)
  check a signature when their key is set, and then turn that warning off.
- Mailgun (WEBHOOK_SIGNING_KEY, else its API key), MailerSend (SIGNING_SECRET), Postal
  (WEBHOOK_KEY) and Unisender Go (API_KEY) always check a signature: without the key the view
  is not built (AnymailConfigurationError).
- Mandrill always checks one too, but defers its missing WEBHOOK_KEY to each POST.
"""

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anymail import urls as anymail_urls
from anymail.exceptions import AnymailInsecureWebhookWarning
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern

PREFIX = "anymail/"  # /webhooks/anymail/<esp>/tracking/, the paths Anymail documents
# Where basic auth is an ESP's only check, its password is all that stands between anyone who
# guesses it and our suppression list: a guessable one, or the profile's placeholder, is none.
BASIC_AUTH_MIN_PASSWORD = 16


@dataclass(frozen=True)
class AnymailTrackingWebhook:
    path: str
    esp: str  # Anymail's esp_name, lower-cased: what its tracking signal says ("amazon ses")
    # Anymail's view as anymail/urls.py mounts it: an as_view() function, which carries its
    # view_class and view_initkwargs (Django's documented attributes).
    callback: Any

    def view(self) -> Callable[[HttpRequest], HttpResponse]:
        return self.callback

    def verification_problems(self) -> list[str]:
        try:
            with warnings.catch_warnings():
                # Its warning is the condition read below: the view is built only to read it.
                warnings.simplefilter("ignore", AnymailInsecureWebhookWarning)
                view = self.callback.view_class(**self.callback.view_initkwargs)
        except ImproperlyConfigured as exc:  # AnymailConfigurationError: its key is missing
            return [f"Anymail's {self.esp} webhook has no signing key: {exc}"]
        if view.warn_if_no_basic_auth and not view.basic_auth:
            return [
                f"Anymail's {self.esp} webhook accepts anyone: set ANYMAIL_WEBHOOK_SECRET to "
                "<user>:<password> (and give the ESP https://<user>:<password>@<host>/webhooks/"
                f"{self.path}), or the ESP's signing key where it signs."
            ]
        if view.warn_if_no_basic_auth and not all(map(_strong_basic_auth, view.basic_auth)):
            return [
                f"ANYMAIL_WEBHOOK_SECRET, the only check of Anymail's {self.esp} webhook, must be "
                f"<user>:<password> with a password of at least {BASIC_AUTH_MIN_PASSWORD} characters, "
                "not a <placeholder> (e.g. secrets.token_urlsafe(24) of Python's secrets module)."
            ]
        if getattr(view, "webhook_key", "") is None:  # Mandrill: checked only when a POST comes
            return [f"Anymail's {self.esp} webhook has no WEBHOOK_KEY to check signatures with."]
        return []


def anymail_tracking_webhook(esp_module: str) -> AnymailTrackingWebhook | None:
    """The tracking webhook of the ESP Anymail names `esp_module` ("postmark", "amazon_ses"),
    or None if Anymail has none for it."""
    name = f"{esp_module}_tracking_webhook"
    for pattern in anymail_urls.urlpatterns:
        if isinstance(pattern, URLPattern) and pattern.name == name:
            callback: Any = pattern.callback
            return AnymailTrackingWebhook(
                path=PREFIX + str(pattern.pattern),
                esp=callback.view_class.esp_name.lower(),
                callback=callback,
            )
    return None


def _strong_basic_auth(credential: str) -> bool:
    user, _, password = credential.partition(":")
    return bool(user) and len(password) >= BASIC_AUTH_MIN_PASSWORD and not set("<>") & set(credential)
