"""One provider delivery event in our words, whichever provider and webhook it came from."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from notifications.models import Notification, ProviderEvent

Kind = ProviderEvent.Kind

# The delivery state an event kind moves a notification to (a `sent` event moves none: it
# proves the provider accepted the email, which settles an unknown outcome).
DELIVERY_STATUS_OF_KIND = {
    Kind.DELIVERY_DELAYED: Notification.DeliveryStatus.DELIVERY_DELAYED,
    Kind.DELIVERED: Notification.DeliveryStatus.DELIVERED,
    Kind.BOUNCED: Notification.DeliveryStatus.BOUNCED,
    Kind.COMPLAINED: Notification.DeliveryStatus.COMPLAINED,
}

# Forward only, whatever order the events arrive in: a late "delayed" never hides
# "delivered", and a bounce reported after delivery (an asynchronous bounce) wins over it.
DELIVERY_STATUS_RANK = {
    Notification.DeliveryStatus.NONE: 0,
    Notification.DeliveryStatus.DELIVERY_DELAYED: 1,
    Notification.DeliveryStatus.DELIVERED: 2,
    Notification.DeliveryStatus.BOUNCED: 3,
    Notification.DeliveryStatus.COMPLAINED: 4,
}


@dataclass(frozen=True)
class TrackingEvent:
    provider: str
    provider_event_id: str  # unique per event at the provider: a redelivered webhook repeats it
    kind: str  # a ProviderEvent.Kind
    occurred_at: datetime
    provider_message_id: str
    idempotency_key: str  # ours, from the tag or metadata the send carried; "" if absent
    recipient: str
    hard_bounce: bool
    description: str
    payload: dict[str, Any]


class UnusableEvent(ValueError):
    """A verified request whose payload we cannot read: refused, stored nowhere."""
