"""A suppression held by its address's keyed hash (infra/keyed_hash.py): it still skips the
next order to the address once the address itself is erased from the row, in any case of the
address; a row of the previous release, with its address and no hash, still suppresses; the
admin finds an erased address's suppression when the address is searched for."""

import hashlib
import hmac

import pytest

from infra.keyed_hash import address_hash
from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.models import Notification, Suppression
from notifications.tracking.suppression import suppression_active
from tests.factories import OrderFactory, staff_user

# Not transactional: the reviewers group comes from a data migration.
pytestmark = pytest.mark.django_db
DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
ADDRESS = "Complained.Once@example.com"


def _next_order_to(address: str) -> Notification:
    order = OrderFactory.create(customer_email=address)
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
    return Notification.objects.get(order=order)


def test_the_hash_is_keyed_and_the_same_whatever_the_address_s_case(settings):
    expected = hmac.new(
        settings.PERSONAL_DATA_HASH_KEY.encode(), ADDRESS.lower().encode(), hashlib.sha256
    ).hexdigest()
    assert address_hash(ADDRESS) == address_hash(f" {ADDRESS.upper()} ") == expected
    # a plain hash of the address, which anyone could compute from a guess, is not it
    assert address_hash(ADDRESS) != hashlib.sha256(ADDRESS.lower().encode()).hexdigest()
    settings.PERSONAL_DATA_HASH_KEY = "another deployment's key, 32 characters or more"
    assert address_hash(ADDRESS) != expected


def test_an_erased_address_stays_suppressed_and_its_next_order_is_skipped(mailsim):
    # given an address that complained, then was erased at its owner's request
    Suppression.objects.create(
        address=ADDRESS, address_hash=address_hash(ADDRESS), reason="complained", detail="spam report"
    )
    Suppression.objects.update(address="", detail="")
    assert not Suppression.objects.filter(address__icontains="complained").exists()
    # when the shop places another order to it, in another case
    notification = _next_order_to(ADDRESS.lower())
    # then it is skipped, with the reason, and nothing is sent
    assert notification.status == "skipped"
    assert "reported as spam" in notification.last_error
    assert mailsim.messages() == []
    assert suppression_active(ADDRESS.upper()) is not None


def test_a_suppression_of_the_previous_release_without_a_hash_still_suppresses(mailsim):
    Suppression.objects.create(address=ADDRESS, reason="bounced", detail="mailbox does not exist")
    notification = _next_order_to(ADDRESS.upper())
    assert notification.status == "skipped"
    assert "bounced on" in notification.last_error
    assert mailsim.messages() == []


def test_another_address_is_not_suppressed_by_an_erased_one(mailsim):
    Suppression.objects.create(address="", address_hash=address_hash(ADDRESS), reason="bounced")
    notification = _next_order_to("someone.else@example.com")
    assert notification.status == "sent"
    assert suppression_active("someone.else@example.com") is None


def test_the_admin_finds_an_erased_address_s_suppression_by_the_address(client):
    Suppression.objects.create(address="", address_hash=address_hash(ADDRESS), reason="complained")
    Suppression.objects.create(
        address="other@example.com", address_hash=address_hash("other@example.com"), reason="bounced"
    )
    client.force_login(staff_user("rita", reviewer=True, otherwise_may_view="view_suppression"))
    # when the reviewer searches for the address
    page = client.get("/admin/notifications/suppression/", {"q": ADDRESS.upper()})
    # then the erased row is found, shown as erased, and the other is not
    assert page.status_code == 200
    text = page.content.decode()
    assert "erased at its owner&#x27;s request; still suppressed" in text
    assert "other@example.com" not in text
