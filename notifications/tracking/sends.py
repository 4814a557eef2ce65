"""Which send of an email a provider event is about, and the address that send went to.

An email goes out under one idempotency key at a time. A reviewer's "send again" retires the
key (RetiredKey) and may first correct the order's address (operations/review/resolve.py).
The provider's events name the key the email was sent under (or the provider's message id)
and arrive late, by up to its webhook retries (Resend: about 32 hours), so an event may be
about an earlier send than the current one. It then describes that send, to the address
that send went to, and says nothing about the current send or the corrected address.

After the customer's erasure the address is gone from the send; its keyed hash stays (the
attempt's, else the order's), and an event is compared with it by the recipient's hash.
"""

from dataclasses import dataclass

from django.db.models import QuerySet

from infra.addresses import address_comparable
from infra.keyed_hash import address_hash, address_hashes
from notifications.models import DeliveryAttempt, Notification, ProviderEvent, RetiredKey
from orders.models import Order


@dataclass(frozen=True)
class EventSend:
    notification: Notification  # locked, with its order
    retired_key: RetiredKey | None  # the key it went out under, if a reviewer has replaced it
    address: str  # where it went; "" if unknown (no attempt of ours went out under a retired key) or erased
    address_hash: str  # its keyed hash, which outlives the address's erasure; "" if unknown


def event_send_locked(event: ProviderEvent) -> EventSend | None:
    """The send `event` is about, its notification locked; None if no notification carries
    its key or message id. Told apart under the lock: a reviewer may retire the key between
    the lookup and the lock."""
    notification = _notification_locked(event)
    if notification is None:
        return None
    retired = _retired_key_of(notification, event)
    return EventSend(notification, retired, *_address_sent(notification, retired))


def email_erased(*, idempotency_key: str, provider_message_id: str) -> bool:
    """Whether the email an event names (by our key, current or retired, or else the provider's
    message id) is of an order whose customer had their data erased."""
    return _named(idempotency_key, provider_message_id).filter(order__erased_at__isnull=False).exists()


def recipient_agrees(event: ProviderEvent, send: EventSend) -> bool:
    """Whether the provider's recipient (none: it named none) is the address the send went to;
    by their keyed hashes once the customer's erasure took the address from both."""
    if send.address:
        return address_agrees(event.recipient, send.address)
    if event.recipient:  # stored before the erasure: its hash under whichever key the send's is
        return not send.address_hash or send.address_hash in address_hashes(event.recipient)
    return not event.recipient_hash or not send.address_hash or event.recipient_hash == send.address_hash


def address_agrees(recipient: str, address: str) -> bool:
    """Whether the provider's recipient (empty: it named none) is the address we sent to."""
    # Compared as the suppression list compares (whatever the case), and with the domain in
    # its ASCII form (infra/addresses.py): a provider may report ada@münchen.de as
    # ada@xn--mnchen-3ya.de; ada@strasse.de is not ada@straße.de (xn--strae-oqa.de).
    return not recipient or address_comparable(recipient) == address_comparable(address)


def _notification_locked(event: ProviderEvent) -> Notification | None:
    ids = _named(event.idempotency_key, event.provider_message_id).values_list("pk", "order_id").first()
    if ids is None:
        return None
    # The lock order of every writer: the order row, then the notification.
    Order.objects.select_for_update(no_key=True).filter(pk=ids[1]).first()
    return Notification.objects.select_for_update().select_related("order").get(pk=ids[0])


def _named(idempotency_key: str, provider_message_id: str) -> QuerySet[Notification]:
    """The notification an event names: by our key, else by a key a reviewer has since
    replaced; an event without our key, by the provider's message id."""
    if idempotency_key:
        found = Notification.objects.filter(idempotency_key=idempotency_key)
        return found if found.exists() else Notification.objects.filter(retired_keys__key=idempotency_key)
    if provider_message_id:
        return Notification.objects.filter(provider_message_id=provider_message_id)
    return Notification.objects.none()


def _retired_key_of(notification: Notification, event: ProviderEvent) -> RetiredKey | None:
    # An event found by the provider's message id (it has no key) is about the current send:
    # a notification carries a message id only once sent, and a sent email is never sent again
    # under a new key (only failed and needs-review ones are).
    return (
        notification.retired_keys.filter(key=event.idempotency_key).first() if event.idempotency_key else None
    )


def _address_sent(notification: Notification, retired: RetiredKey | None) -> tuple[str, str]:
    """The address of the send's last attempt, and its keyed hash. Its empty recipient (an
    attempt from before attempts kept theirs) means the order's address: a correction writes
    the previous one into such attempts before it changes the order's. Erased: the hash alone."""
    last = (
        _attempts_under(notification, retired).order_by("-number").values_list("recipient", "recipient_hash")
    )
    row = last.first()
    if row is None and retired is not None:
        return "", ""  # no attempt went out under that key: nothing we sent can have bounced
    recipient, recipient_hash = row or ("", "")
    if recipient:
        return recipient, recipient_hash or address_hash(recipient)
    if recipient_hash:
        return "", recipient_hash
    order = notification.order
    if order.customer_email:
        return order.customer_email, address_hash(order.customer_email)
    return "", order.customer_email_hash  # erased, from an attempt that kept no hash


def _attempts_under(notification: Notification, retired: RetiredKey | None) -> QuerySet[DeliveryAttempt]:
    if retired is None:
        return notification.attempts.filter(number__gte=notification.key_first_attempt)
    later = notification.retired_keys.filter(version__gt=retired.version).order_by("version").first()
    end = later.first_attempt if later is not None else notification.key_first_attempt
    return notification.attempts.filter(number__gte=retired.first_attempt, number__lt=end)
