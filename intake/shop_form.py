"""The form of a connected shop in the admin: a secret is typed in and never shown back (its field
is empty on every page, and left empty it keeps the stored one), URLs are HTTPS, the sender is an
address."""

from email.utils import parseaddr
from typing import Any

from django import forms
from django.core.validators import validate_email
from django.db import models

from shops.models import SHOP_EMAIL_FIELDS, Shop


def _formfield(field: models.Field, **kwargs: Any) -> forms.Field | None:
    if isinstance(field, models.URLField):
        kwargs["assume_scheme"] = "https"  # a shop's pages are HTTPS
    return field.formfield(**kwargs)


def _write_only(help_text: str) -> forms.CharField:
    return forms.CharField(
        required=False, strip=True, widget=forms.PasswordInput(render_value=False), help_text=help_text
    )


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

    def clean_webhook_secret(self) -> str:
        secret = self._kept("webhook_secret")
        # Saleor signs with its own key (intake/saleor/signature.py): its shops have no secret.
        if not secret and self.cleaned_data.get("platform") != Shop.Platform.SALEOR:
            raise forms.ValidationError(
                "A new shop needs its secret: its deliveries cannot be checked without it."
            )
        # The other shop is not named: the page must not tell whose secret a guess is.
        if secret and Shop.objects.exclude(pk=self.instance.pk).filter(webhook_secret=secret).exists():
            raise forms.ValidationError(
                "Another connected shop has this secret. Each shop needs its own (Shopify: an app of "
                "its own; WooCommerce: a secret of its own on its webhooks): the platforms sign the "
                "body alone, so a delivery for one would be accepted at the other's address."
            )
        return secret

    def clean_api_key(self) -> str:
        return self._kept("api_key")

    def clean_api_secret(self) -> str:
        return self._kept("api_secret")

    def _kept(self, name: str) -> str:
        typed: str = self.cleaned_data[name]
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
