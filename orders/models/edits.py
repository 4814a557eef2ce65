"""A change of what an order holds after it was placed (orders/edits.py)."""

import uuid

from django.db import models

from orders.models.order import Order


class OrderEdit(models.Model):
    """One change of an order's content, from one OrderVersion to the next: what changed for
    the customer, line by line, and the totals before and after. Its email ("your order was
    changed") is about it; never edited."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="edits")
    from_version = models.PositiveIntegerField()  # OrderVersion.number before the change
    to_version = models.PositiveIntegerField()  # and after it
    # [{"sku", "name", "before", "after"}]: each line whose quantity changed (0: absent), or
    # whose price changed, in the order of the new content, then the removed ones.
    lines = models.JSONField(default=list)
    total_before_minor = models.BigIntegerField()
    total_after_minor = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["to_version"]
        constraints = [
            models.UniqueConstraint(fields=["order", "to_version"], name="order_edit_unique_version"),
        ]

    def __str__(self) -> str:
        return f"Order {self.order_id}: version {self.from_version} to {self.to_version}"
