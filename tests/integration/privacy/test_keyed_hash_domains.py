"""Two domains that IDNA 2003 made one are two customers: ada@straße.de (whose domain mail
software resolves as xn--strae-oqa.de) and ada@strasse.de, for the keyed hash, the export, the
erasure and the suppression list (infra/addresses.py). An erasure asked with the address as the
customer wrote it finds it in the corrections and words that quote it. Hashes stored under the
2003 rule move with `manage.py personal_data_rehash` where their row holds the address; until
then a suppression that holds its address still suppresses it."""

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from infra.keyed_hash import address_hash
from notifications.models import AddressCorrection, OperatorAction, Suppression
from notifications.tracking.suppression import suppression_active
from operations.review.resolve import notification_send_again
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.export import customer_export
from privacy.models import Erasure
from tests.factories import NotificationFactory, OrderFactory, UnpublishedOrderFactory
from tests.integration.privacy.address_support import bounced, next_order_to

pytestmark = pytest.mark.django_db
ESZETT, OTHER = "ada@straße.de", "ada@strasse.de"


def _ada_s_order_corrected_by_a_reviewer(comment: str) -> Order:
    """Ada's order, her address mistyped at the checkout and corrected to ESZETT by a reviewer."""
    order = UnpublishedOrderFactory.create(customer_email="ada@strase.de")
    email = NotificationFactory.create(order=order, needs_review=True)
    notification_send_again(
        notification_id=email.pk, actor=None, actor_name="rita", comment=comment, new_address=ESZETT
    )
    return order


def test_two_domains_idna_2003_made_one_are_two_customers_for_the_export_and_the_erasure():
    assert address_hash(ESZETT) != address_hash(OTHER)
    assert address_hash(ESZETT) == address_hash("ADA@STRAẞE.DE") == address_hash("ada@xn--strae-oqa.de")
    # given: Ada of straße.de ordered, and another person, ada of strasse.de, ordered too
    ada_s = _ada_s_order_corrected_by_a_reviewer(comment="she spelled it ada@straße.de on the phone")
    other = OrderFactory.create(customer_email=OTHER)
    # when Ada asks for her data, then she is given her order alone
    assert [o["order"] for o in customer_export(ESZETT)["orders"]] == [str(ada_s.id)]
    # when she asks for erasure
    erasure = customer_erase(address=ESZETT, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    # then her order alone is erased
    assert erasure.changed["orders"] == 1
    assert Order.objects.get(pk=other.pk).customer_email == OTHER
    assert [o["order"] for o in customer_export(OTHER)["orders"]] == [str(other.id)]


def test_an_erasure_by_the_address_as_written_blanks_the_corrections_and_words_that_quote_it():
    # given: a reviewer corrected Ada's order to ESZETT, and another order's note quotes it
    ada_s = _ada_s_order_corrected_by_a_reviewer(comment="she spelled it ada@straße.de on the phone")
    note = OperatorAction.objects.create(
        action=OperatorAction.Action.RESEND_NEW_KEY, actor_name="rita", comment="asked by Ada@Straße.de"
    )
    # when an operator erases her address as she writes it
    customer_erase(address=ESZETT, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    # then the correction no longer names it, nor does the reviewer's comment or the other note
    [correction] = AddressCorrection.objects.filter(order=ada_s)
    assert correction.new_address == ""
    corrected = OperatorAction.objects.get(action=OperatorAction.Action.CORRECT_ADDRESS)
    assert corrected.comment == "she spelled it (erased) on the phone"
    assert OperatorAction.objects.get(pk=note.pk).comment == "asked by (erased)"


def test_a_bounce_of_one_domain_does_not_suppress_the_other(mailsim):
    # given: Ada's email to straße.de bounced, the provider naming her domain in ASCII
    hers = NotificationFactory.create(order__customer_email=ESZETT, status="sent", provider="resend")
    bounced(hers, reported_as="ada@xn--strae-oqa.de")
    assert suppression_active(ESZETT) is not None
    # then the other domain's customer is not suppressed: her next order is sent
    assert suppression_active(OTHER) is None
    assert next_order_to(OTHER).status == "sent"
    assert next_order_to(ESZETT).status == "skipped"
    # when the other's email bounces too, then it is a suppression of its own
    theirs = NotificationFactory.create(order__customer_email=OTHER, status="sent", provider="resend")
    bounced(theirs, reported_as=OTHER)
    assert sorted(Suppression.objects.values_list("address", flat=True)) == [OTHER, ESZETT]
    # and a bounce the provider reports for strasse.de says nothing about straße.de
    Suppression.objects.filter(address=ESZETT).delete()
    bounced(hers, reported_as=OTHER)
    assert suppression_active(ESZETT) is None


def test_the_rehash_moves_the_2003_hashes_of_rows_that_hold_their_address(mailsim):
    # given, as the previous release stored them (ß hashed as ss): Ada's order and her
    # suppression, which hold her address, and an erasure's record, which holds the hash alone
    old = address_hash(OTHER)
    ada_s, other = OrderFactory.create(customer_email=ESZETT), OrderFactory.create(customer_email=OTHER)
    Order.objects.filter(pk=ada_s.pk).update(customer_email_hash=old)
    Suppression.objects.create(address=ESZETT, address_hash=old, reason="bounced")
    record = Erasure.objects.create(
        address_hash=old, via=Erasure.Via.COMMAND, actor_name="dpo", erased_at=timezone.now()
    )
    # then until the rehash, the suppression that holds her address still suppresses her
    assert next_order_to(ESZETT).status == "skipped"
    # when a dry run counts
    dry = io.StringIO()
    call_command("personal_data_rehash", "--dry-run", stdout=dry)
    assert "would move 1 row(s) of orders.Order.customer_email_hash" in dry.getvalue()
    assert "would move 1 row(s) of notifications.Suppression.address_hash" in dry.getvalue()
    # when it runs
    call_command("personal_data_rehash", stdout=io.StringIO())
    # then her rows hold her own hash, the other customer's order keeps its own
    assert Order.objects.get(pk=ada_s.pk).customer_email_hash == address_hash(ESZETT)
    assert Suppression.objects.get().address_hash == address_hash(ESZETT)
    assert Order.objects.get(pk=other.pk).customer_email_hash == old
    assert suppression_active(OTHER) is None
    # and the record holding a 2003 hash alone stays: it stood for either domain, nothing tells which
    assert Erasure.objects.get(pk=record.pk).address_hash == old


def test_an_order_with_a_2003_hash_is_hers_by_its_address_until_the_rehash():
    # given: Ada's order as the previous release stored it, its hash the 2003 rule's (that of
    # ada@strasse.de); the rehash has not run yet
    ada_s = OrderFactory.create(customer_email=ESZETT)
    Order.objects.filter(pk=ada_s.pk).update(customer_email_hash=address_hash(OTHER))
    # when she asks for her data, and then for its erasure
    exported = customer_export(ESZETT)
    erasure = customer_erase(address=ESZETT, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    # then her order is found by the address it holds: in the export, and erased
    assert [o["order"] for o in exported["orders"]] == [str(ada_s.id)]
    assert erasure.changed["orders"] == 1
    assert Order.objects.get(pk=ada_s.pk).customer_email == ""
