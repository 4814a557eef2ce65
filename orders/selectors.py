from uuid import UUID

from orders.models import Order


def order_get(*, order_id: UUID) -> Order | None:
    return Order.objects.filter(id=order_id).first()
