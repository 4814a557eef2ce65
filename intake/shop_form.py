"""The form of a connected shop in the admin: a secret is typed in and never shown back (its field
is empty on every page, and left empty it keeps the stored one), URLs are HTTPS, the sender is an
address."""

from email.utils import parseaddr
from typing import Any

from django import forms
from django.core.validators import validate_email
from django.db import models

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

    def clean_domain(self) -> str:
        domain: str = self.cleaned_data["domain"].strip()
        # A Saleor's keys sign for every shop that names its API URL: two shops naming one place
        # would each accept the other's deliveries (as two shops sharing a secret would).
        others = Shop.objects.exclude(pk=self.instance.pk).values_list("domain", flat=True)
        if any(site_of(other) == site_of(domain) for other in others):
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
        moved = self.instance.pk and "domain" in self.changed_data
        kept = not (self.data.get("api_key") and self.data.get("api_secret"))
        if moved and kept and (self.instance.api_key or self.instance.api_secret):
            self.add_error(
                "api_key",
                "The store's address changed: type its REST API key and secret again. A stored key "
                "is never sent to a new address.",
            )
        return cleaned

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
