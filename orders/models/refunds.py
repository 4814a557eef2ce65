import uuid

from django.db import models

from orders.models.order import Order
from orders.models.parcels import Shipment


class Refund(models.Model):
    """Money going back to the customer, as the shop announced it: how much, for which lines
    (if any), why, and the parcel it answers (a return), if any. Never edited. A refund
    announced with the order's cancellation is told in the cancellation's email, not one of
    its own."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="refunds")
    shop_refund_id = models.CharField(max_length=64)  # the shop's own id: the API is idempotent by it
    amount_minor = models.BigIntegerField()  # in the order's currency's minor units, > 0
    lines = models.JSONField(default=list)  # [{"sku", "name", "quantity"}]
    reason = models.CharField(max_length=200, blank=True)
    # The shipment it answers (a returned parcel): its email follows that parcel's.
    shipment = models.ForeignKey(Shipment, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    in_cancellation = models.BooleanField(default=False)
    request_fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["order", "shop_refund_id"], name="refund_unique_shop_id"),
            models.CheckConstraint(condition=models.Q(amount_minor__gt=0), name="refund_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"Refund {self.shop_refund_id} of order {self.order_id}"
