"""The one address rule (infra/address_match.py) where PostgreSQL and the service disagree about
an address, or a row's hash does about whose row it is.

- PostgreSQL's lower() is not Python's: the dotted capital I (İ, U+0130) is i to PostgreSQL
  (any libc locale) and i with a combining dot above to Python, which IDNA 2008 keeps:
  ada@İstanbul.com is ada@xn--istanbul-o0e.com, another domain's address than ada@istanbul.com
  (their keyed hashes differ), yet lower() writes both as ada@istanbul.com.
- A hash stored under the IDNA 2003 rule is another domain's address's hash too (ada@straße.de
  hashed as ada@strasse.de): a row that holds its address says whose it is; its hash does not.

A suppressed address must never be sent to; an export or an erasure finds the customer's rows
and never another person's."""

import io

import pytest
from django.core.management import call_command

from infra.keyed_hash import address_hash
from notifications.models import Suppression
from notifications.tracking.suppression import suppression_active, suppression_lift
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.export import customer_export
from privacy.models import Erasure
from tests.factories import NotificationFactory, OrderFactory, staff_user
from tests.integration.privacy.address_support import bounced, next_order_to

pytestmark = pytest.mark.django_db
DOTTED, PLAIN = "ada@İstanbul.com", "ada@istanbul.com"
ESZETT, OTHER = "ada@straße.de", "ada@strasse.de"


def test_the_dotted_and_the_plain_domain_are_two_addresses_to_the_service():
    assert address_hash(DOTTED) != address_hash(PLAIN)


def test_a_suppression_of_an_earlier_release_still_suppresses_an_address_with_a_dotted_i(mailsim):
    # given: the address bounced under a release that kept no hash (its row holds the address)
    Suppression.objects.create(address=DOTTED, address_hash="", reason="bounced")
    # when its next order's confirmation is claimed, then it is skipped and nothing is sent
    # (at 4577523 the claim's read compared lower() with lower() and found the row)
    notification = next_order_to(DOTTED)
    assert notification.status == "skipped", notification.last_error
    assert mailsim.messages() == []
    # and the address's own look-up finds it
    assert suppression_active(DOTTED) is not None


def test_the_plain_domain_s_export_and_erasure_leave_the_dotted_domain_s_order():
    # given: two customers, of ada@İstanbul.com and of ada@istanbul.com
    dotted, plain = OrderFactory.create(customer_email=DOTTED), OrderFactory.create(customer_email=PLAIN)
    # when the plain domain's customer asks for her data, then she is given her order alone
    assert [o["order"] for o in customer_export(PLAIN)["orders"]] == [str(plain.id)]
    # when she asks for its erasure, then hers alone is erased
    erasure = customer_erase(address=PLAIN, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    assert erasure.changed["orders"] == 1
    assert Order.objects.get(pk=dotted.pk).customer_email == DOTTED


def test_the_dotted_domain_s_suppression_does_not_skip_the_plain_domain_s_email(mailsim):
    # given: ada@İstanbul.com bounced (her row holds her address and its hash)
    Suppression.objects.create(address=DOTTED, address_hash=address_hash(DOTTED), reason="bounced")
    # then the other address is not suppressed: its email is sent (at 4577523 the claim's
    # read matched an address only where a hash was missing)
    notification = next_order_to(PLAIN)
    assert notification.status == "sent", notification.last_error
    assert suppression_active(PLAIN) is None


def test_her_order_s_2003_hash_does_not_give_it_to_the_other_domain_s_export_or_erasure():
    # given: Ada's order of straße.de as the previous release stored it (its hash the 2003
    # rule's, that of ada@strasse.de), and the order of the customer of strasse.de
    ada_s, other = OrderFactory.create(customer_email=ESZETT), OrderFactory.create(customer_email=OTHER)
    Order.objects.filter(pk=ada_s.pk).update(customer_email_hash=address_hash(OTHER))
    # when the other customer asks for her data, then she is given her own order alone
    assert [o["order"] for o in customer_export(OTHER)["orders"]] == [str(other.id)]
    # when she asks for its erasure, then Ada's order keeps Ada's address
    erasure = customer_erase(address=OTHER, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    assert erasure.changed["orders"] == 1
    assert Order.objects.get(pk=ada_s.pk).customer_email == ESZETT


def test_a_bounce_of_the_other_domain_is_kept_while_her_suppression_holds_a_2003_hash(mailsim):
    # given: Ada of straße.de is suppressed by a row of the previous release (her address, the
    # 2003 hash, which is that of ada@strasse.de)
    Suppression.objects.create(address=ESZETT, address_hash=address_hash(OTHER), reason="bounced")
    # when the other customer's email bounces hard
    theirs = NotificationFactory.create(order__customer_email=OTHER, status="sent", provider="resend")
    bounced(theirs, reported_as=OTHER)
    # and the rehash then moves Ada's row to her own hash
    call_command("personal_data_rehash", stdout=io.StringIO())
    # then the bounced address stays suppressed: its next email is skipped, nothing is sent
    assert suppression_active(OTHER) is not None
    assert next_order_to(OTHER).status == "skipped"
    assert mailsim.messages() == []


def test_the_plain_domain_s_erasure_leaves_the_dotted_domain_suppressed(mailsim):
    # given: ada@İstanbul.com bounced (her row holds her address and its hash)
    Suppression.objects.create(address=DOTTED, address_hash=address_hash(DOTTED), reason="bounced")
    # when the customer of ada@istanbul.com has her data erased
    customer_erase(address=PLAIN, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    # then the bounced address is still suppressed: its next email is skipped, nothing is sent
    assert Suppression.objects.get().address_hash == address_hash(DOTTED)
    assert next_order_to(DOTTED).status == "skipped"
    assert mailsim.messages() == []


def test_the_other_domain_s_erasure_leaves_her_suppressed_while_her_row_holds_a_2003_hash(mailsim):
    # given: Ada of straße.de is suppressed by a row of the previous release (her address, the
    # 2003 hash, which is that of ada@strasse.de)
    Suppression.objects.create(address=ESZETT, address_hash=address_hash(OTHER), reason="bounced")
    # when the customer of strasse.de has her data erased
    customer_erase(address=OTHER, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    # then Ada is still suppressed: her next email is skipped, nothing is sent
    assert next_order_to(ESZETT).status == "skipped"
    assert mailsim.messages() == []


def test_a_bounce_of_the_plain_domain_outlives_the_lift_of_the_dotted_domain_s_suppression(mailsim):
    # given: ada@İstanbul.com bounced, then so did ada@istanbul.com
    Suppression.objects.create(address=DOTTED, address_hash=address_hash(DOTTED), reason="bounced")
    theirs = NotificationFactory.create(order__customer_email=PLAIN, status="sent", provider="resend")
    bounced(theirs, reported_as=PLAIN)
    # when a reviewer lifts the suppression of ada@İstanbul.com
    dotted = Suppression.objects.get(address_hash=address_hash(DOTTED))
    rita = staff_user("rita", reviewer=True)
    assert suppression_lift(suppression_id=dotted.pk, actor=rita, comment="she fixed her mailbox")
    # then ada@istanbul.com, which bounced too, stays suppressed: nothing is sent to it
    assert suppression_active(PLAIN) is not None
    assert next_order_to(PLAIN).status == "skipped"
    assert mailsim.messages() == []
