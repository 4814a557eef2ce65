from uuid import UUID

from django.db.models import Prefetch

from notifications.models import Notification
from orders.models import Order


def order_get_with_notifications(*, order_id: UUID) -> Order | None:
    return (
        Order.objects.prefetch_related(
            Prefetch("notifications", queryset=Notification.objects.order_by("kind"))
        )
        .filter(id=order_id)
        .first()
    )
