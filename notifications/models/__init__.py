from notifications.models.content import EmailTemplateVersion
from notifications.models.notification import DeliveryAttempt, Notification
from notifications.models.operations import AddressCorrection, OperatorAction, RetiredKey
from notifications.models.reconciliation import ReconcileMismatch, ReconcileReport
from notifications.models.tracking import ProviderCircuit, ProviderEvent, ProviderRateBucket, Suppression

__all__ = [
    "AddressCorrection",
    "DeliveryAttempt",
    "EmailTemplateVersion",
    "Notification",
    "OperatorAction",
    "ProviderCircuit",
    "ProviderEvent",
    "ProviderRateBucket",
    "ReconcileMismatch",
    "ReconcileReport",
    "RetiredKey",
    "Suppression",
]
