import uuid

from django.conf import settings
from django.db import models

from apiauth.models import ApiToken


def site_locale() -> str:
    """The site's language (settings.LANGUAGE_CODE): an order that names none gets it."""
    return settings.LANGUAGE_CODE


class OrderQuerySet(models.QuerySet["Order"]):
    def placed_by_client_of(self, api_token: ApiToken | None) -> "OrderQuerySet":
        """The orders the token's client placed, under this token or another of the same client
        (a rotated one): what the API lets the token read and change. None: the orders placed
        without a token (by the product's own tools)."""
        if api_token is None:
            return self.filter(api_token__isnull=True)
        return self.filter(api_token__client=api_token.client)


class Order(models.Model):
    class Status(models.TextChoices):
        CREATED = "created"
        PAID = "paid"
        CANCELLED = "cancelled"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The shop's own order number, the one its customers see and quote; unique per API token.
    # NULL for an order placed with the short body (amount and currency only): customers then
    # see the first characters of `id`.
    number = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    customer_email = models.EmailField()
    # The address's keyed hash (infra/keyed_hash.py): the claim matches it against the
    # suppression list, which keeps only the hash of an address that was erased. Empty for an
    # order written before it existed (or by a process of the previous release during a
    # rolling deploy): the claim then matches the address itself.
    customer_email_hash = models.CharField(max_length=64, blank=True, db_default="")
    customer_name = models.CharField(max_length=200, blank=True, db_default="")
    # A shop platform's order: the customer's address as the platform last sent it. Only a change
    # of it is the shop's correction (intake/apply.py); a reviewer's correction of the order's
    # address stays while the platform keeps sending the one it had. Empty for an order from the
    # API, or one received before it was kept (its next delivery records it).
    platform_customer_email = models.EmailField(max_length=254, blank=True, default="", db_default="")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CREATED)
    # The customer's language (one of settings.LANGUAGES): the language of every email of the order.
    # The database default serves processes of the previous release during a rolling deploy,
    # whose INSERT does not name the column.
    locale = models.CharField(max_length=8, default=site_locale, db_default="en")
    # Incremented on every change, so an event can say which state of the order it saw.
    version = models.PositiveIntegerField(default=1)
    # The OrderVersion holding what was bought, as the shop sent it (lines, addresses,
    # totals); NULL for an order placed with the short body, whose columns say all of it.
    content_version = models.PositiveIntegerField(null=True, blank=True)
    # A client's Idempotency-Key is unique per API token: a retried POST finds its order.
    api_token = models.ForeignKey(
        "apiauth.ApiToken", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # NULL, not "", for "no key": the partial unique constraint must ignore keyless orders.
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    # SHA-256 of the request body that created the order: the same key with another body is
    # a client bug, answered with 422 instead of silently returning a different order.
    request_fingerprint = models.CharField(max_length=64, blank=True)
    # The connected shop whose platform sent the order (shops/), its id for the order there,
    # and the platform's timestamp of the newest state of it applied: an update older than
    # that changes nothing. All NULL for an order placed through the API.
    # No index of its own: the unique (shop, platform_order_id) index serves every lookup by shop.
    shop = models.ForeignKey(
        "shops.Shop", null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    platform_order_id = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    platform_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # When the customer's personal data was erased at their request (orders/personal_data.py):
    # the address, name and what was bought are gone, the amounts stay; no email of it is sent.
    erased_at = models.DateTimeField(null=True, blank=True)
    # When the order was paid: set once by its payment (orders/changes.py, or its creation
    # already paid by a platform), kept by its cancellation. NULL: never paid, so nothing of it
    # can be refunded (orders/refunds.py).
    paid_at = models.DateTimeField(null=True, blank=True)
    # What its payment took, in minor units: the total when it was paid, which an edit of the
    # order afterwards does not change (orders/edits.py); refunds go back up to it. NULL for an
    # order never paid, and for one paid before it was kept (its total then stands for it).
    paid_minor = models.BigIntegerField(null=True, blank=True)

    objects = OrderQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["api_token", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="order_unique_client_idempotency_key",
            ),
            models.UniqueConstraint(
                fields=["api_token", "number"],
                condition=models.Q(number__isnull=False),
                name="order_unique_token_number",
            ),
            models.UniqueConstraint(
                fields=["shop", "platform_order_id"],
                condition=models.Q(shop__isnull=False),
                name="order_unique_shop_platform_order",
            ),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="order_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"Order {self.id} ({self.status})"


class OrderVersion(models.Model):
    """What was bought, as the shop sent it: its lines, addresses, shipping, discounts and
    totals in the currency's minor units (orders/content.py says the shape). Written once and
    never edited: a later change of the order is a new version, so an email can show the
    version its event saw."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content = models.JSONField()
    # The grand total in minor units, also in `content`: reconciliation sums it without JSON.
    total_minor = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["order", "number"], name="order_version_unique_number"),
        ]

    def __str__(self) -> str:
        return f"Order {self.order_id} version {self.number}"
