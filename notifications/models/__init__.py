from notifications.models.inbox import ProcessedEvent
from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.operations import DeadLetterRecord, OperatorAction, ReconcileReport
from notifications.models.outbox import OutboxEvent

__all__ = [
    "DeadLetterRecord",
    "DeliveryAttempt",
    "Notification",
    "OperatorAction",
    "OutboxEvent",
    "ProcessedEvent",
    "ReconcileReport",
]
