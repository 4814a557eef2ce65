"""Which send of an email a provider event is about, and the address that send went to.

An email goes out under one idempotency key at a time. A reviewer's "send again" retires the
key (RetiredKey) and may first correct the order's address (operations/review/resolve.py).
The provider's events name the key the email was sent under (or the provider's message id)
and arrive late, by up to its webhook retries (Resend: about 32 hours), so an event may be
about an earlier send than the current one. It then describes that send, to the address
that send went to, and says nothing about the current send or the corrected address.
"""

from contextlib import suppress
from dataclasses import dataclass

from django.db.models import QuerySet

from notifications.models import DeliveryAttempt, Notification, ProviderEvent, RetiredKey
from orders.models import Order


@dataclass(frozen=True)
class EventSend:
    notification: Notification  # locked, with its order
    retired_key: RetiredKey | None  # the key it went out under, if a reviewer has replaced it
    address: str  # where it went; "" if unknown: no attempt of ours went out under a retired key


def event_send_locked(event: ProviderEvent) -> EventSend | None:
    """The send `event` is about, its notification locked; None if no notification carries
    its key or message id. Told apart under the lock: a reviewer may retire the key between
    the lookup and the lock."""
    notification = _notification_locked(event)
    if notification is None:
        return None
    retired = _retired_key_of(notification, event)
    return EventSend(notification, retired, _address_sent(notification, retired))


def address_agrees(recipient: str, address: str) -> bool:
    """Whether the provider's recipient (empty: it named none) is the address we sent to."""
    return not recipient or _comparable(recipient) == _comparable(address)


def _comparable(address: str) -> str:
    # Compared as the suppression list compares (whatever the case), and with the domain in
    # its ASCII form: a provider may report ada@münchen.de as ada@xn--mnchen-3ya.de.
    local, _, domain = address.strip().rpartition("@")
    with suppress(UnicodeError):  # a domain IDNA refuses (an empty or too long label) stays as is
        domain = domain.encode("idna").decode("ascii")
    return f"{local}@{domain}".lower()


def _notification_locked(event: ProviderEvent) -> Notification | None:
    found = Notification.objects.none()
    if event.idempotency_key:
        found = Notification.objects.filter(idempotency_key=event.idempotency_key)
        if not found.exists():  # sent under a key a reviewer has since replaced
            found = Notification.objects.filter(retired_keys__key=event.idempotency_key)
    elif event.provider_message_id:
        found = Notification.objects.filter(provider_message_id=event.provider_message_id)
    ids = found.values_list("pk", "order_id").first()
    if ids is None:
        return None
    # The lock order of every writer: the order row, then the notification.
    Order.objects.select_for_update(no_key=True).filter(pk=ids[1]).first()
    return Notification.objects.select_for_update().select_related("order").get(pk=ids[0])


def _retired_key_of(notification: Notification, event: ProviderEvent) -> RetiredKey | None:
    # An event found by the provider's message id (it has no key) is about the current send:
    # a notification carries a message id only once sent, and a sent email is never sent again
    # under a new key (only failed and needs-review ones are).
    return (
        notification.retired_keys.filter(key=event.idempotency_key).first() if event.idempotency_key else None
    )


def _address_sent(notification: Notification, retired: RetiredKey | None) -> str:
    """The address of the send's last attempt. Its empty recipient (an attempt from before
    attempts kept theirs) means the order's address: a correction writes the previous one
    into such attempts before it changes the order's."""
    last = _attempts_under(notification, retired).order_by("-number").values_list("recipient", flat=True)
    recipient = last.first()
    if recipient is None and retired is not None:
        return ""  # no attempt went out under that key: nothing we sent can have bounced
    return recipient or notification.order.customer_email


def _attempts_under(notification: Notification, retired: RetiredKey | None) -> QuerySet[DeliveryAttempt]:
    if retired is None:
        return notification.attempts.filter(number__gte=notification.key_first_attempt)
    later = notification.retired_keys.filter(version__gt=retired.version).order_by("version").first()
    end = later.first_attempt if later is not None else notification.key_first_attempt
    return notification.attempts.filter(number__gte=retired.first_attempt, number__lt=end)
