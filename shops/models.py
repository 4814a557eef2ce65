"""A shop connected through its platform (Shopify, WooCommerce, Saleor): where its webhooks come
from, the secret that proves they did, and how its emails present it. Several shops may share one
deployment; an order placed through the API belongs to none and is presented with the settings'
brand (SHOP_* in .env.example).

The model is here, below orders/ and notifications/, which read the shop of every order; its page
in the admin is the intake's (intake/shop_admin.py, its form intake/shop_form.py), since what the
page does is the platform's (the webhook's topics, the signing key, a test delivery) and the
platforms are the intake's, a layer above."""

import uuid

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models

# What an email of the shop's orders shows of it (notifications/content/brand.py), and no more:
# never its secret.
SHOP_EMAIL_FIELDS = (
    "name",
    "sender",
    "url",
    "logo_url",
    "primary_color",
    "support_email",
    "footer_address",
    "legal_name",
    "legal_address",
    "phone",
    "register",
    "terms_url",
    "withdrawal_url",
    "withdrawal_days",
)
# Blank: the deployment's own (SHOP_* and MAIL_FROM_ADDRESS in .env.example), field by field.
_FALLS_BACK = "Empty: the deployment's setting."


class Shop(models.Model):
    class Platform(models.TextChoices):
        SHOPIFY = "shopify", "Shopify"
        WOOCOMMERCE = "woocommerce", "WooCommerce"
        SALEOR = "saleor", "Saleor"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The last part of the shop's webhook address (/shops/<slug>/webhook): one address per shop.
    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=200, help_text="The shop's name as its customers know it.")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    # Shopify: the shop's myshopify.com domain, which every delivery names in
    # X-Shopify-Shop-Domain; WooCommerce: the store's address; Saleor: its API URL.
    domain = models.CharField(max_length=255)
    # Shopify: the app's client secret; WooCommerce: the webhook's secret. Kept as it is (the
    # signature check needs it), never shown back in full and never logged; one shop's alone.
    webhook_secret = models.CharField(max_length=255, blank=True)
    # WooCommerce: a REST API key of the store (read access to orders), for `shop_backfill` to
    # fetch what its webhooks never delivered. Never shown back, never logged, like the secret.
    api_key = models.CharField(max_length=255, blank=True)
    api_secret = models.CharField(max_length=255, blank=True)
    # A shop switched off answers 404, as an unknown one: its platform stops sending after
    # its retries, and nothing it sends is stored.
    active = models.BooleanField(default=True)
    # How its emails present it and who they come from. The mail provider must be allowed to
    # send from the sender's domain (its DNS records): the shop's own setup, docs/platforms.md.
    sender = models.CharField(
        max_length=254,
        blank=True,
        help_text='The From of its emails, e.g. "Tea House <orders@tea.example>". ' + _FALLS_BACK,
    )
    url = models.URLField(blank=True, help_text="The shop's address. " + _FALLS_BACK)
    logo_url = models.URLField(blank=True, help_text=_FALLS_BACK)
    primary_color = models.CharField(
        max_length=7,
        blank=True,
        validators=[RegexValidator(r"^#[0-9a-fA-F]{6}$", "Write it as #rrggbb.")],
        help_text="#rrggbb. " + _FALLS_BACK,
    )
    support_email = models.EmailField(blank=True, help_text=_FALLS_BACK)
    footer_address = models.CharField(max_length=300, blank=True, help_text=_FALLS_BACK)
    # The seller, as an EU order confirmation must name it (docs/email-content.md).
    legal_name = models.CharField(max_length=200, blank=True, help_text=_FALLS_BACK)
    legal_address = models.CharField(max_length=300, blank=True, help_text=_FALLS_BACK)
    phone = models.CharField(max_length=64, blank=True, help_text=_FALLS_BACK)
    register = models.CharField(max_length=200, blank=True, help_text=_FALLS_BACK)
    # Printed on its invoices and credit notes (orders/invoicing/parties.py).
    vat_number = models.CharField(
        max_length=32,
        blank=True,
        default="",
        db_default="",
        help_text="The seller's VAT number. " + _FALLS_BACK,
    )
    terms_url = models.URLField(blank=True, help_text=_FALLS_BACK)
    withdrawal_url = models.URLField(blank=True, help_text=_FALLS_BACK)
    withdrawal_days = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(14)], help_text="At least 14. " + _FALLS_BACK
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Shopify and WooCommerce sign the body alone; the header naming the shop is not
            # signed. Two shops with one secret would each accept the other's deliveries.
            models.UniqueConstraint(
                fields=["webhook_secret"],
                condition=~models.Q(webhook_secret=""),
                name="shop_secret_not_shared",
                violation_error_message="Another connected shop has this secret: each shop needs its own.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_platform_display()})"

    @property
    def secret_hint(self) -> str:
        """Enough of the secret for a person to tell two apart: its last four characters."""
        if not self.webhook_secret:
            return "(none)"
        return "…" + self.webhook_secret[-4:]
