"""A suppression held by its address's keyed hash (infra/keyed_hash.py): it still skips the
next order to the address once the address itself is erased from the row, in any case of the
address; a row of the previous release, with its address and no hash, still suppresses; the
admin finds an erased address's suppression when the address is searched for. The claim's
read and the address's own look-up (`suppression_active`) are one rule: they agree on an
order whose stored hash is missing or stale, and on a row whose hash is of a retired key."""

import hashlib
import hmac

import pytest

from infra.keyed_hash import address_hash
from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.models import Notification, Suppression
from notifications.tracking.suppression import suppression_active
from orders.models import Order
from tests.factories import OrderFactory, staff_user

# Not transactional: the reviewers group comes from a data migration.
pytestmark = pytest.mark.django_db
DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
ADDRESS = "Complained.Once@example.com"


def _next_order_to(address: str, *, stored_hash: str | None = None) -> Notification:
    """The next order's confirmation, claimed; `stored_hash`: the order's hash as an earlier
    release stored it ("" during a rolling deploy, or one of an earlier rule)."""
    order = OrderFactory.create(customer_email=address)
    if stored_hash is not None:
        Order.objects.filter(pk=order.pk).update(customer_email_hash=stored_hash)
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


def test_an_order_without_its_hash_is_suppressed_by_an_erased_address_s_hash(mailsim):
    # given: the address complained and was erased; an order to it placed by the previous
    # release during a rolling deploy, which stores no hash
    Suppression.objects.create(address="", address_hash=address_hash(ADDRESS), reason="complained")
    # when its confirmation is claimed, then the claim finds what the address's look-up finds
    assert suppression_active(ADDRESS) is not None
    assert _next_order_to(ADDRESS, stored_hash="").status == "skipped"
    assert mailsim.messages() == []


def test_an_order_hashed_under_idna_2003_is_not_suppressed_for_the_other_domain(mailsim):
    # given: ada@strasse.de bounced; Ada of straße.de has an order of the previous release,
    # whose hash (IDNA 2003: ß as ss) is the one of ada@strasse.de
    eszett, other = "ada@straße.de", "ada@strasse.de"
    Suppression.objects.create(address=other, address_hash=address_hash(other), reason="bounced")
    # when her order's confirmation is claimed, then it is sent: her address is not suppressed
    assert suppression_active(eszett) is None
    notification = _next_order_to(eszett, stored_hash=address_hash(other))
    assert notification.status == "sent", notification.last_error


def test_a_suppression_that_holds_its_address_suppresses_it_after_its_key_is_retired(settings, mailsim):
    # given: a suppression holding its address, hashed under a key since retired (the rotation
    # done, the previous key dropped, before `personal_data_rehash` ran)
    settings.PERSONAL_DATA_HASH_KEY = "the key before the rotation, 32 characters+"
    Suppression.objects.create(address=ADDRESS, address_hash=address_hash(ADDRESS), reason="bounced")
    settings.PERSONAL_DATA_HASH_KEY = "the key after the rotation, 32 characters+"
    # when the next order to the address is claimed, then the row's address suppresses it
    assert suppression_active(ADDRESS) is not None
    assert _next_order_to(ADDRESS).status == "skipped"
    assert mailsim.messages() == []
