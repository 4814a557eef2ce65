from django.db import models


class DailySales(models.Model):
    """Paid orders per day and currency, for the dashboard. Counted at least once: a
    redelivered `order.paid` may count twice (orders/events.py says why)."""

    day = models.DateField()
    currency = models.CharField(max_length=3)
    paid_orders = models.PositiveIntegerField(default=0)
    paid_amount = models.DecimalField(max_digits=16, decimal_places=2, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "currency"], name="daily_sales_unique_day_currency")
        ]
        verbose_name_plural = "daily sales"

    def __str__(self) -> str:
        return f"{self.day} {self.currency}: {self.paid_orders} paid"
