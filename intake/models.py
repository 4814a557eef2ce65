"""Every webhook delivery a connected shop's platform made, stored once: what it said, what it
became, and why not when it could not be used."""

import uuid

from django.db import models


class PlatformDelivery(models.Model):
    class Outcome(models.TextChoices):
        USED = "used", "used"
        STALE = "stale", "older than what was applied: changed nothing"
        WAITING = "waiting", "waiting for its order"
        TOPIC_UNUSED = "topic_unused", "a topic we do not use"
        FOR_A_PERSON = "for_a_person", "for a person"
        COULD_NOT_USE = "could_not_use", "could not use"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    shop = models.ForeignKey("shops.Shop", on_delete=models.PROTECT, related_name="deliveries")
    # What names the delivery, the same on each retry of it and on any copy of its bytes: the
    # digest of the signed body, "sha256:<hex>" (intake/delivery_keys.py), on every platform; a
    # Shopify shop's second shop/redact with the bytes of its first, the digest and ":after:<id
    # of the shop's delivery since>" (intake/shopify/shop_redact.py); the backfill's
    # "backfill:<order id>:<modified>". Rows stored before keep their former key (Shopify's
    # X-Shopify-Event-Id, WooCommerce's "<delivery id>:<hex>"). A second copy finds this row and
    # changes nothing.
    event_key = models.CharField(max_length=255)
    # The platform's ids of the subscription and of this one delivery, where it sends them
    # (Shopify's event and webhook ids, WooCommerce's webhook and delivery ids), kept for a
    # person tracing it: they are not signed, so they do not name the delivery.
    webhook_id = models.CharField(max_length=255, blank=True)
    topic = models.CharField(max_length=100)
    # The platform's id of the order it is about, when it names one: a delivery waiting for its
    # order is applied when that order arrives.
    platform_order_id = models.CharField(max_length=64, blank=True)
    body = models.TextField()  # as received (after its signature was checked), for a re-run
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    reason = models.TextField(blank=True)  # in words, for an outcome other than "used"
    order = models.ForeignKey(
        "orders.Order", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    received_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    runs = models.PositiveIntegerField(default=1)  # 1 + the re-runs a person asked for

    class Meta:
        ordering = ["-received_at"]
        verbose_name_plural = "platform deliveries"
        permissions = [("rerun_platformdelivery", "Can run a delivery again")]
        constraints = [
            models.UniqueConstraint(fields=["shop", "event_key"], name="platform_delivery_unique_event"),
        ]
        indexes = [
            models.Index(
                fields=["shop", "platform_order_id", "received_at"],
                condition=models.Q(outcome="waiting"),
                name="platform_delivery_waiting",
            ),
            models.Index(
                fields=["received_at"],
                condition=models.Q(outcome="could_not_use"),
                name="platform_delivery_unusable",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic} {self.event_key} ({self.outcome})"


class UnusableDelivery(PlatformDelivery):
    """The deliveries a person must look at: those that could not be used, and those still
    waiting for their order (the admin's list "Deliveries we could not use")."""

    class Meta:
        proxy = True
        verbose_name = "delivery we could not use"
        verbose_name_plural = "deliveries we could not use"
