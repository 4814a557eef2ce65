"""Reads of an order that other features need, beside the model itself."""

from typing import Any

from orders.models import Order, OrderVersion


def order_content(order: Order, number: int | None = None) -> dict[str, Any] | None:
    """What was bought, as version `number` of the order says it (default: the current one);
    None for an order placed with the short body, which has no content."""
    number = number or order.content_version
    if number is None:
        return None
    return (
        OrderVersion.objects.filter(order_id=order.pk, number=number)
        .values_list("content", flat=True)
        .first()
    )
