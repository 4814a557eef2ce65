from notifications.models.inbox import ProcessedEvent
from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.outbox import OutboxEvent

__all__ = ["DeliveryAttempt", "Notification", "OutboxEvent", "ProcessedEvent"]
