from notifications.models.content import EmailTemplateVersion
from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.operations import AddressCorrection, OperatorAction, ReconcileReport, RetiredKey
from notifications.models.tracking import ProviderEvent, Suppression

__all__ = [
    "AddressCorrection",
    "DeliveryAttempt",
    "EmailTemplateVersion",
    "Notification",
    "OperatorAction",
    "ProviderEvent",
    "ReconcileReport",
    "RetiredKey",
    "Suppression",
]
