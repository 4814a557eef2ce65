"""What still arrives about a customer after their erasure: the mail provider's late events
about their emails (Resend retries for about 32 hours), a shop platform's late delivery of their
order (an orders/updated). Neither stores the address again; a complaint or a hard bounce still
suppresses the address the email went to, by its keyed hash alone."""

import json

import pytest
from django.utils import timezone

from infra.keyed_hash import address_hash
from notifications.models import DeliveryAttempt, Notification, ProviderEvent, Suppression
from notifications.tracking.suppression import suppression_active
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.models import Erasure
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery
from tests.factories import OrderFactory, confirmation_claimed
from tests.integration.test_provider_webhooks import SIGNING_KEY, _apply_all, _post, _resend_body

pytestmark = pytest.mark.django_db
ADA = "ada@example.com"
HARD_BOUNCE = {"type": "Permanent", "message": f"550 5.1.1 <{ADA}>: no such mailbox"}


@pytest.fixture(autouse=True)
def _webhook_secret(settings):
    settings.RESEND_WEBHOOK_SECRET = SIGNING_KEY


def _erase() -> Erasure:
    return customer_erase(address=ADA, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")


def _sent_then_erased() -> Notification:
    """Ada's confirmation, sent through Resend by a worker's claim, then her erasure."""
    order = OrderFactory.create(customer_email=ADA)
    confirmation_claimed(order)  # the attempt as a worker writes it
    Notification.objects.filter(order=order).update(
        status="sent",
        provider="resend",
        provider_message_id="re-msg-ada",
        lease_owner="",
        lease_expires_at=None,
    )
    DeliveryAttempt.objects.filter(notification__order=order).update(
        outcome="accepted", finished_at=timezone.now()
    )
    _erase()
    return Notification.objects.select_related("order").get(order=order)


@pytest.mark.parametrize(
    ("kind", "data"),
    [("email.complained", {}), ("email.bounced", {"bounce": HARD_BOUNCE})],
    ids=["complaint", "bounce"],
)
def test_a_complaint_or_hard_bounce_after_the_erasure_suppresses_the_address_by_its_hash(kind, data):
    email = _sent_then_erased()
    # when the provider's event comes after the erasure
    assert _post(_resend_body(kind, email, to=[ADA], **data)).json()["detail"] == "stored"
    [result] = _apply_all()
    # then the address is suppressed, held by its keyed hash alone
    assert "address suppressed" in result
    [suppression] = Suppression.objects.all()
    assert (suppression.address, suppression.detail) == ("", "")
    assert suppression.address_hash == address_hash(ADA)
    assert suppression_active(ADA.upper()) == suppression


def test_an_event_naming_another_recipient_after_the_erasure_suppresses_nothing():
    email = _sent_then_erased()
    _post(_resend_body("email.complained", email, to=["grace@example.com"]))
    [result] = _apply_all()
    assert "nothing changed" in result
    assert not Suppression.objects.exists()


def test_a_provider_event_about_an_erased_email_is_stored_without_the_address():
    email = _sent_then_erased()
    # when
    _post(_resend_body("email.bounced", email, to=[ADA], bounce=HARD_BOUNCE))
    _apply_all()
    # then the event is kept, without the address anywhere in it
    [event] = ProviderEvent.objects.all()
    assert (event.kind, event.hard_bounce, event.notification_id) == ("bounced", True, email.pk)
    stored = json.dumps([event.recipient, event.payload, event.description, event.result])
    assert ADA not in stored, stored
    assert ADA not in Notification.objects.get(pk=email.pk).delivery_detail


def test_a_platform_s_late_delivery_of_an_erased_order_stores_no_address():
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _erase()
    # when Shopify's orders/updated comes late
    late = shopify.order(updated_at="2026-12-03T10:00:00+01:00", financial_status="paid")
    tea_house_deliver("orders/updated", late, "evt-late")
    # then neither the order nor the delivery holds the address again
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    assert (order.customer_email, order.customer_name) == ("", "")
    assert order.erased_at is not None
    delivery = tea_house_delivery("evt-late")
    assert ADA not in delivery.body + delivery.reason
    assert "Lovelace" not in delivery.body


def test_a_late_delivery_of_an_erased_order_that_cannot_be_used_stores_no_address():
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-create")
    _erase()
    # when a late orders/updated announces a refund beyond what was paid: refused
    too_much = [{**shopify.REFUND["transactions"][0], "amount": "999.00"}]
    late = shopify.order(
        updated_at="2026-12-03T10:00:00+01:00", refunds=[shopify.REFUND | {"transactions": too_much}]
    )
    tea_house_deliver("orders/updated", late, "evt-late")
    # then it is kept with its reason, without the address
    delivery = tea_house_delivery("evt-late")
    assert delivery.outcome == "could_not_use", delivery.reason
    assert ADA not in delivery.body + delivery.reason
