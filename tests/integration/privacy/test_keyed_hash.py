"""The keyed hash that stands for an address (infra/keyed_hash.py): one customer whatever form
their domain is written in (ada@münchen.de, ada@xn--mnchen-3ya.de), as the sends compare
addresses; and a key that can be rotated: every lookup matches the current or the previous key,
and `manage.py personal_data_rehash` moves each hash whose address is still held to the current
one."""

import hashlib
import hmac
import io

import pytest
from django.core.management import CommandError, call_command

from infra.keyed_hash import address_hash
from notifications.models import Suppression
from notifications.tracking.suppression import suppression_active
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.export import customer_export
from privacy.models import Erasure, Export
from tests.factories import OrderFactory
from tests.integration.privacy.address_support import next_order_to

pytestmark = pytest.mark.django_db
UNICODE, PUNYCODE = "ada@münchen.de", "ada@xn--mnchen-3ya.de"
OLD_KEY, NEW_KEY = "the key before the rotation, 32 characters+", "the key after the rotation, 32 characters+"
ADA, BOB = "ada@example.com", "bob@example.com"


def _rotated(settings) -> None:
    settings.PERSONAL_DATA_HASH_KEY_PREVIOUS = settings.PERSONAL_DATA_HASH_KEY
    settings.PERSONAL_DATA_HASH_KEY = NEW_KEY


def test_an_internationalised_domain_hashes_alike_in_either_form():
    assert address_hash(UNICODE) == address_hash(PUNYCODE.upper()) == address_hash(" Ada@MÜNCHEN.de ")
    assert address_hash(UNICODE) != address_hash("ada@munchen.de")


def test_an_internationalised_domain_is_one_customer_for_the_export_and_the_erasure():
    order = OrderFactory.create(customer_email=UNICODE)
    # the export asked for in the other form finds the order
    assert [o["order"] for o in customer_export(PUNYCODE)["orders"]] == [str(order.id)]
    # and so does the erasure
    erasure = customer_erase(address=PUNYCODE, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    assert erasure.changed["orders"] == 1
    assert Order.objects.get(pk=order.pk).customer_email == ""


def test_an_address_suppressed_in_one_form_is_suppressed_in_the_other(settings, mailsim):
    Suppression.objects.create(address=PUNYCODE, address_hash=address_hash(PUNYCODE), reason="bounced")
    assert suppression_active(UNICODE) is not None
    # and an erased one, hashed as typed before domains were normalised, still suppresses
    typed = hmac.new(settings.PERSONAL_DATA_HASH_KEY.encode(), UNICODE.encode(), hashlib.sha256).hexdigest()
    Suppression.objects.update(address="", address_hash=typed)
    assert suppression_active(PUNYCODE) is not None
    notification = next_order_to(UNICODE)
    assert notification.status == "skipped", notification.last_error
    assert mailsim.messages() == []


def test_after_a_rotation_every_lookup_matches_the_previous_key_too(settings, mailsim):
    # given, under the old key: an order, an erasure's record, an erased address's suppression
    settings.PERSONAL_DATA_HASH_KEY = OLD_KEY
    order = OrderFactory.create(customer_email=ADA)
    customer_erase(address=BOB, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    Suppression.objects.create(address="", address_hash=address_hash(BOB), reason="complained")
    # when the key changes, the old one kept as the previous key
    _rotated(settings)
    # then the order, the erasure and the suppression are found by their addresses
    assert [o["order"] for o in customer_export(ADA)["orders"]] == [str(order.id)]
    assert len(customer_export(BOB)["erasures of this address's data"]) == 1
    assert suppression_active(BOB) is not None
    # and a new order to the erased address that complained is skipped
    assert next_order_to(BOB).status == "skipped"
    assert mailsim.messages() == []


def test_the_rehash_moves_every_hash_whose_address_is_held_to_the_current_key(settings):
    # given, under the old key: Ada's order (the address held), her suppression and her export's
    # record (hashes alone), and Bob's erased order (his address held nowhere)
    settings.PERSONAL_DATA_HASH_KEY = OLD_KEY
    ada_s = OrderFactory.create(customer_email=ADA)
    Suppression.objects.create(address="", address_hash=address_hash(ADA), reason="complained")
    customer_export(ADA, via=Erasure.Via.COMMAND, actor_name="dpo")
    bob_s = OrderFactory.create(customer_email=BOB)
    customer_erase(address=BOB, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    old_ada, old_bob = address_hash(ADA), address_hash(BOB)
    _rotated(settings)
    # when a dry run counts
    dry = io.StringIO()
    call_command("personal_data_rehash", "--dry-run", stdout=dry)
    # then it says what it would move, and moves nothing
    assert "would move 1 row(s) of orders.Order.customer_email_hash" in dry.getvalue()
    assert "would move 1 row(s) of notifications.Suppression.address_hash (hash only)" in dry.getvalue()
    assert Order.objects.get(pk=ada_s.pk).customer_email_hash == old_ada
    # when it runs
    out = io.StringIO()
    call_command("personal_data_rehash", stdout=out)
    # then Ada's hashes are under the new key, wherever her address is held
    assert Order.objects.get(pk=ada_s.pk).customer_email_hash == address_hash(ADA)
    assert Suppression.objects.get().address_hash == address_hash(ADA)
    assert Export.objects.get().address_hash == address_hash(ADA)
    # and Bob's, whose address is held nowhere, stay under the old key, counted
    assert Order.objects.get(pk=bob_s.pk).customer_email_hash == old_bob
    assert "2 row(s) hold only a hash" in out.getvalue()  # Bob's order and his erasure's record
    # and once the previous key is gone, Ada is still found
    settings.PERSONAL_DATA_HASH_KEY_PREVIOUS = ""
    assert suppression_active(ADA) is not None
    assert [o["order"] for o in customer_export(ADA)["orders"]] == [str(ada_s.pk)]


def test_the_rehash_refuses_what_it_does_not_know():
    with pytest.raises(CommandError, match="unrecognized arguments: --dry-runs"):
        call_command("personal_data_rehash", "--dry-runs")
