"""A parcel of an order on its way, and its carrier's news."""

import uuid

from django.db import models

from orders.models.order import Order


class ParcelStatus(models.TextChoices):
    """Where a parcel stands, as its carrier reports it (the words Shopify's fulfilment events
    use). "shipped": it left the shop and no news came yet."""

    SHIPPED = "shipped", "shipped"
    IN_TRANSIT = "in_transit", "in transit"
    OUT_FOR_DELIVERY = "out_for_delivery", "out for delivery"
    ATTEMPTED_DELIVERY = "attempted_delivery", "delivery attempted"
    FAILURE = "failure", "delivery failed"
    DELIVERED = "delivered", "delivered"


class Shipment(models.Model):
    """A parcel of an order on its way, as the shop announced it: its carrier and tracking, and
    the lines in it (with their names as the order had them, so its email needs nothing else).
    An order may have several; each has its own email. Never edited: a shop that sends the same
    shipment id again gets this one back, or a conflict if it differs."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="shipments")
    shop_shipment_id = models.CharField(max_length=64)  # the shop's own id: the API is idempotent by it
    carrier = models.CharField(max_length=64)
    tracking_number = models.CharField(max_length=64, blank=True)
    tracking_url = models.URLField(max_length=500, blank=True)
    lines = models.JSONField(default=list)  # [{"sku", "name", "quantity"}]
    # SHA-256 of what the shop sent: the same id with another body is refused, not merged.
    request_fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    # Where the parcel stands, from the carrier's news (ShipmentEvent, orders/parcel_progress.py):
    # the newest event's status, and when it happened; "shipped" until the first news. The one
    # column a shipment changes after it is stored. The database default serves processes of the
    # previous release during a rolling deploy, whose INSERT does not name the column.
    progress = models.CharField(
        max_length=20, choices=ParcelStatus.choices, default=ParcelStatus.SHIPPED, db_default="shipped"
    )
    progress_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["order", "shop_shipment_id"], name="shipment_unique_shop_id"),
        ]

    def __str__(self) -> str:
        return f"Shipment {self.shop_shipment_id} of order {self.order_id}"


class ShipmentEvent(models.Model):
    """One piece of a carrier's news about a parcel (in transit, out for delivery, delivered…),
    as the shop or its platform passed it on: kept as it came, never edited. What it did is
    kept with it: whether it became the parcel's status, and the email it recorded, if any, or
    why none (orders/parcel_progress.py decides)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    shipment = models.ForeignKey(Shipment, on_delete=models.PROTECT, related_name="events")
    # The news's own id where it came from (a platform's event id, a client's): idempotent by it.
    shop_event_id = models.CharField(max_length=64)
    status = models.CharField(max_length=20, choices=ParcelStatus.choices)
    happened_at = models.DateTimeField()  # when the carrier says it happened, not when it arrived
    message = models.CharField(max_length=200, blank=True)  # the carrier's words, if any
    # Whether it is the parcel's status now (False: older than news already kept, or after delivery).
    became_status = models.BooleanField()
    # The event of the email it recorded (orders/events.py, e.g. "parcel.delivered"), "" if none.
    email_event = models.CharField(max_length=32, blank=True)
    note = models.CharField(max_length=200, blank=True)  # why no email, in words
    request_fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["happened_at", "created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["shipment", "shop_event_id"], name="shipment_event_unique_shop_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_status_display()} at {self.happened_at:%Y-%m-%d %H:%M} ({self.shop_event_id})"
