"""A shop corrects a customer's mistyped address on its platform (Shopify's order edit): the next
order delivery carries the right one. It replaces the order's address as a reviewer's correction
does: recorded (who, when: the platform), the earlier sends keeping the address they went to,
and the emails still to come going to the new one. An older delivery, or one about an erased
order, changes nothing."""

import pytest

from notifications.models import AddressCorrection, DeliveryAttempt, Notification, OperatorAction
from operations.review.resolve import notification_send_again
from orders.models import Order
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery
from tests.factories import DeliveryAttemptFactory

pytestmark = pytest.mark.django_db
TYPO = "ada@exampel.com"


def _order_with_a_typo() -> Order:
    tea_house_create()
    customer = dict(shopify.ORDER["customer"], email=TYPO)
    assert tea_house_deliver("orders/create", shopify.order(email=TYPO, customer=customer), "e1") == "used"
    return Order.objects.get(platform_order_id=str(shopify.ORDER_ID))


def test_the_platform_s_corrected_address_replaces_the_order_s_and_is_recorded():
    # given: an order whose confirmation already went to the mistyped address
    order = _order_with_a_typo()
    confirmation = Notification.objects.get(order=order, kind="order_confirmation")
    # (as an older release recorded it: without the address, which was the order's)
    DeliveryAttemptFactory.create(notification=confirmation, outcome="accepted", recipient="")
    # when: the shop corrects it, and the parcel leaves
    fixed = shopify.order(updated_at="2026-12-01T09:00:00+01:00", fulfillments=[shopify.FULFILLMENT])
    assert tea_house_deliver("orders/updated", fixed, "e2") == "used"
    # then: the order's emails from now on go to the corrected address
    order.refresh_from_db()
    assert order.customer_email == "ada@example.com"
    assert "address changed by the platform" in tea_house_delivery("e2").reason
    # the earlier send keeps the address it went to
    assert DeliveryAttempt.objects.get(notification=confirmation).recipient == TYPO
    # and a person can see who changed it and when
    [correction] = AddressCorrection.objects.filter(order=order)
    assert (correction.previous_address, correction.new_address) == (TYPO, "ada@example.com")
    assert correction.action.action == OperatorAction.Action.PLATFORM_ADDRESS
    assert correction.action.actor_name == "Shopify tea-house"
    assert TYPO not in correction.action.comment + correction.action.result


def test_an_older_delivery_or_the_same_address_in_another_case_changes_nothing():
    order = _order_with_a_typo()
    older = shopify.order(updated_at="2026-11-29T09:00:00+01:00")  # before the applied state
    assert tea_house_deliver("orders/updated", older, "e2") == "stale"
    same = dict(shopify.ORDER["customer"], email=TYPO.upper())
    newer = shopify.order(email=TYPO.upper(), customer=same, updated_at="2026-12-01T09:00:00+01:00")
    assert tea_house_deliver("orders/updated", newer, "e3") == "used"
    order.refresh_from_db()
    assert order.customer_email == TYPO
    assert not AddressCorrection.objects.exists()


def test_a_reviewer_s_correction_stays_while_the_platform_keeps_sending_its_own_address():
    # given: the confirmation to the mistyped address failed, and a reviewer corrected it (the
    # shop never corrected it on its platform, so each of its deliveries still carries the typo)
    order = _order_with_a_typo()
    confirmation = Notification.objects.get(order=order, kind="order_confirmation")
    Notification.objects.filter(pk=confirmation.pk).update(status="failed")
    notification_send_again(
        notification_id=confirmation.pk,
        actor=None,
        actor_name="rita",
        comment="typo in the domain, confirmed by phone",
        new_address="ada@example.com",
    )
    # when: the parcel leaves; the platform's delivery still says the typo
    customer = dict(shopify.ORDER["customer"], email=TYPO)
    shipped = shopify.order(
        email=TYPO,
        customer=customer,
        updated_at="2026-12-01T09:00:00+01:00",
        fulfillments=[shopify.FULFILLMENT],
    )
    assert tea_house_deliver("orders/updated", shipped, "e2") == "used"
    # then: the reviewer's address stays, and the parcel's email goes there
    order.refresh_from_db()
    assert order.customer_email == "ada@example.com"
    assert AddressCorrection.objects.filter(order=order).count() == 1
    # and when the shop does correct it on its platform, to another address, that one is taken
    moved = dict(shopify.ORDER["customer"], email="ada@new.example")
    newer = shopify.order(email="ada@new.example", customer=moved, updated_at="2026-12-02T09:00:00+01:00")
    assert tea_house_deliver("orders/updated", newer, "e3") == "used"
    order.refresh_from_db()
    assert order.customer_email == "ada@new.example"
