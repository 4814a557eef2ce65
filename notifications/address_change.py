"""An order's address replaced after some of its emails went out: a reviewer's correction of a
mistyped address, or the shop's own correction arriving from its platform. One way for both,
so that what was sent stays true: every send so far keeps the address it went to (attempts of
an older release, which kept none, get the previous address written), a provider's late event
about them never acts on the new one, and the change is recorded with who made it."""

from notifications.models import AddressCorrection, DeliveryAttempt, OperatorAction
from orders.changes import order_address_correct
from orders.models import Order


def order_address_change(*, order: Order, address: str, record: OperatorAction) -> str:
    """In the caller's transaction, which holds the order locked; returns the previous address."""
    previous = order_address_correct(order=order, address=address)
    DeliveryAttempt.objects.filter(notification__order=order, recipient="").update(recipient=previous)
    AddressCorrection.objects.create(
        order=order,
        previous_address=previous,
        new_address=address,
        action=record,
        corrected_at=record.created_at,
    )
    return previous
