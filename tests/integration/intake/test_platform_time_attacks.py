"""Attacks on the order of a platform's deliveries by their time (intake/same_time.py): a
delivery whose time is far ahead of the clock must not make every later, legitimate change of
the order stale (intake/apply.py's stale check). Each delivery is posted signed through the real
webhook view."""

import pytest

from intake.models import PlatformDelivery
from orders.models import Order
from tests import shopify_payloads as shopify
from tests.integration.intake.platform_edit_support import deliver, tea_house_order, with_mug

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def test_a_delivery_stamped_far_in_the_future_is_refused_and_the_order_s_later_changes_apply(tea_house):
    # given: a paid order
    deliver("orders/create", shopify.ORDER)
    # when: a delivery of its platform stamped in the year 9999 (a platform app's broken clock,
    # or a signed body crafted so), then the platform's real next change, a mug added
    future = deliver("orders/updated", shopify.order(updated_at="9999-12-31T23:59:59+00:00"))
    edit = deliver("orders/updated", with_mug(shopify.order(updated_at="2026-12-02T10:00:00+01:00")))
    # then: the future one is refused with the reason, and the edit is applied
    order = tea_house_order()
    assert future.outcome == Outcome.COULD_NOT_USE, future.reason
    assert "after our clock" in future.reason
    assert (edit.reason, str(order.amount)) == ("order edited (version 2)", "69.60"), edit.reason


def test_a_new_order_stamped_in_year_1_east_of_utc_is_refused_and_leaves_no_unreadable_row(tea_house):
    # given: a signed delivery of a new order stamped in year 1 at +05:00, a time BC in UTC,
    # which PostgreSQL keeps and psycopg cannot read back ("timestamp too small")
    delivery = deliver("orders/create", shopify.order(updated_at="0001-01-01T00:00:00+05:00"))
    # then: refused with its reason, and no order row that no read could load again
    assert delivery.outcome == Outcome.COULD_NOT_USE, delivery.reason
    assert "outside the times this service can keep" in delivery.reason
    assert not Order.objects.filter(shop__slug="tea-house").exists()
    # and the platform's next delivery of the order creates it
    later = deliver("orders/updated", shopify.order(updated_at="2026-12-02T10:00:00+01:00"))
    assert later.reason.startswith("order created"), later.reason
    assert tea_house_order().platform_updated_at is not None
