"""The customer emails. Rendered from fields that never change after the order is placed,
so every attempt sends byte-identical content: a provider compares the body with the one it
saw under the same key and would refuse (or, worse, replay stale content for) a drift."""

from notifications.models import Notification
from notifications.providers.base import OutboundEmail
from orders.models import Order


def email_render(*, notification: Notification, order: Order, event_id: str) -> OutboundEmail:
    if notification.kind == Notification.Kind.ORDER_CONFIRMATION:
        subject = f"Your order {str(order.id)[:8]} is confirmed"
        text = (
            "Thank you for your order.\n\n"
            f"Order number: {order.id}\n"
            f"Amount: {order.amount} {order.currency}\n\n"
            "We will write again when it ships.\n"
        )
    elif notification.kind == Notification.Kind.ORDER_CANCELLATION:
        subject = f"Your order {str(order.id)[:8]} is cancelled"
        text = (
            "Your order has been cancelled.\n\n"
            f"Order number: {order.id}\n"
            f"Amount: {order.amount} {order.currency}\n\n"
            "If you paid for it, the amount is refunded to you.\n"
        )
    else:
        raise ValueError(f"no email template for notification kind {notification.kind!r}")
    return OutboundEmail(
        idempotency_key=notification.idempotency_key,
        to=order.customer_email,
        subject=subject,
        text=text,
        event_id=event_id,
    )
