"""The form of a connected shop in the admin: a secret is typed in and never shown back (its field
is empty on every page, and left empty it keeps the stored one), URLs are HTTPS, the sender is an
address."""

from email.utils import parseaddr
from typing import Any

from django import forms
from django.core.validators import validate_email
from django.db import models

from intake.hmac_signature import secret_as_typed
from intake.platforms import PLATFORMS
from shops.models import SHOP_EMAIL_FIELDS, Shop
from shops.sites import site_of


def _formfield(field: models.Field, **kwargs: Any) -> forms.Field | None:
    if isinstance(field, models.URLField):
        kwargs["assume_scheme"] = "https"  # a shop's pages are HTTPS
    return field.formfield(**kwargs)


def _write_only(help_text: str) -> forms.CharField:
    return forms.CharField(
        required=False, strip=True, widget=forms.PasswordInput(render_value=False), help_text=help_text
    )


def _signing_key(platform: str, secret: str) -> str:
    """The key the platform signs with, made of the secret (intake/platforms.py); the secret as
    typed while the platform chosen is none of them (the form then says so)."""
    row = PLATFORMS.get(platform)
    return (row.signing_key if row else secret_as_typed)(secret)


def _place(platform: str, domain: str) -> str:
    """Where a shop's deliveries are proven to come from (intake/platforms.py): a Saleor's keys
    are its host's, whatever the API URL's path; other platforms' the address's host and path."""
    row = PLATFORMS.get(platform)
    return (row.place_of if row else site_of)(domain)


class ShopForm(forms.ModelForm):
    """A secret is typed in and never shown back: its field is empty on every page, and left
    empty it keeps the stored one."""

    webhook_secret = _write_only(
        "Shopify: the app's client secret; WooCommerce: the webhook's secret; Saleor: none. Never "
        "shown again; leave empty to keep the one stored."
    )
    api_key = _write_only("WooCommerce: a REST API consumer key with read access, for shop_backfill.")
    api_secret = _write_only("WooCommerce: that key's consumer secret.")

    class Meta:
        model = Shop
        formfield_callback = _formfield
        fields = [
            "name",
            "slug",
            "platform",
            "domain",
            "webhook_secret",
            "api_key",
            "api_secret",
            "active",
            *SHOP_EMAIL_FIELDS[1:],
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._typed: set[str] = set()  # the write-only fields given a value (_kept)

    def clean_webhook_secret(self) -> str:
        secret = self._kept("webhook_secret")
        # Saleor signs with its own key (intake/saleor/signature.py): its shops have no secret.
        row = PLATFORMS.get(self.cleaned_data.get("platform", ""))
        if not secret and (row is None or row.signs_with_secret):
            raise forms.ValidationError(
                "A new shop needs its secret: its deliveries cannot be checked without it."
            )
        # The other shop is not named: the page must not tell whose secret a guess is. Compared
        # as each platform signs with it (WooCommerce decodes HTML entities: "a&amp;b" is "a&b").
        platform = self.cleaned_data.get("platform", "")
        others = Shop.objects.exclude(pk=self.instance.pk).exclude(webhook_secret="")
        if secret and any(
            _signing_key(other.platform, other.webhook_secret) == _signing_key(platform, secret)
            for other in others.only("platform", "webhook_secret")
        ):
            raise forms.ValidationError(
                "Another connected shop has this secret. Each shop needs its own (Shopify: an app of "
                "its own; WooCommerce: a secret of its own on its webhooks): the platforms sign the "
                "body alone, so a delivery for one would be accepted at the other's address."
            )
        return secret

    def clean_domain(self) -> str:
        domain: str = self.cleaned_data["domain"].strip()
        # A Saleor's keys sign for every shop that names its API URL: two shops naming one place
        # would each accept the other's deliveries (as two shops sharing a secret would).
        others = Shop.objects.exclude(pk=self.instance.pk).only("platform", "domain")
        if any(
            _place(other.platform, other.domain) == _place(self.cleaned_data.get("platform", ""), domain)
            for other in others
        ):
            raise forms.ValidationError(
                "Another connected shop is at this address: each shop is connected once, so that a "
                "delivery proven to come from it can only be that shop's."
            )
        return domain

    def clean_api_key(self) -> str:
        return self._kept("api_key")

    def clean_api_secret(self) -> str:
        return self._kept("api_secret")

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        # The backfill sends the stored REST key to the store's address. Whoever may change the
        # shop never sees the key: if a new address kept it, they could have it sent to their own
        # server. So a new address takes a key only typed along with it.
        # Typed means a value after the field stripped it: blanks keep the stored one.
        moved = self.instance.pk and "domain" in self.changed_data
        kept = not {"api_key", "api_secret"} <= self._typed
        if moved and kept and (self.instance.api_key or self.instance.api_secret):
            self.add_error(
                "api_key",
                "The store's address changed: type its REST API key and secret again. A stored key "
                "is never sent to a new address.",
            )
        return cleaned

    def _kept(self, name: str) -> str:
        typed: str = self.cleaned_data[name]
        if typed:
            self._typed.add(name)
        return typed or (getattr(self.instance, name) if self.instance.pk else "")

    def clean_sender(self) -> str:
        sender: str = self.cleaned_data["sender"].strip()
        if sender:
            address = parseaddr(sender)[1]
            try:
                validate_email(address)
            except forms.ValidationError as exc:
                raise forms.ValidationError(
                    f"{sender!r} holds no email address: write it as Tea House <orders@tea.example>."
                ) from exc
        return sender
