from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.operations import OperatorAction, ReconcileReport

__all__ = ["DeliveryAttempt", "Notification", "OperatorAction", "ReconcileReport"]
