from notifications.models.content import EmailTemplateVersion
from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.operations import OperatorAction, ReconcileReport
from notifications.models.tracking import ProviderEvent, Suppression

__all__ = [
    "DeliveryAttempt",
    "EmailTemplateVersion",
    "Notification",
    "OperatorAction",
    "ProviderEvent",
    "ReconcileReport",
    "Suppression",
]
