"""Attacks on what a platform's order proves came in (intake/platform_payments.py,
intake/shopify/payments.py) with a shop's odd but signed data: a refund listed twice, a status
that is not a text. Each delivery is posted signed through the real webhook view."""

import copy
from typing import Any

import pytest

from intake.models import PlatformDelivery
from orders.models import Refund
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.integration.intake.platform_edit_support import deliver, money, tea_house_order

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _deposit_refunded(refunds: list[dict[str, Any]]) -> dict[str, Any]:
    """The 59.70 order first seen with a deposit of 20.00 of which 10.00 went back: Shopify's
    49.70 outstanding then."""
    order = shopify.order(financial_status="partially_refunded", refunds=refunds)
    money(order, "current_total_price", "59.70")
    order["total_outstanding"] = "49.70"
    return order


def _refund_of(amount: str) -> dict[str, Any]:
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["amount"] = amount
    return refund


def test_a_refund_listed_twice_counts_once_in_what_came_in(tea_house):
    # when: the same refund (one id) appears twice in the order's refunds
    refund = _refund_of("10.00")
    delivery = deliver("orders/create", _deposit_refunded([refund, copy.deepcopy(refund)]))
    # then: 20.00 came in (59.70 - 49.70 + 10.00), not 30.00; the refund recorded once
    order = tea_house_order()
    assert order.paid_minor == 2000, delivery.reason
    assert Refund.objects.filter(order=order).count() == 1


def test_a_refund_listed_once_counts_what_came_in(tea_house):
    # the same delivery with the refund once: the figure the test above expects
    delivery = deliver("orders/create", _deposit_refunded([_refund_of("10.00")]))
    assert tea_house_order().paid_minor == 2000, delivery.reason


@pytest.mark.parametrize("status", [["paid"], {"paid": True}])
def test_a_shopify_financial_status_not_a_text_is_refused_with_its_reason(tea_house, status):
    delivery = deliver("orders/create", shopify.order(financial_status=status))
    assert delivery.outcome == Outcome.COULD_NOT_USE
    assert "did not foresee" not in delivery.reason, delivery.reason
    assert "financial_status" in delivery.reason, delivery.reason


@pytest.mark.parametrize("status", [["processing"], {"a": 1}])
def test_a_woocommerce_status_not_a_text_is_refused_with_its_reason(woo_deliver, status):
    delivery = woo_deliver("order.created", woo.order(status=status))
    assert delivery.outcome == Outcome.COULD_NOT_USE
    assert "did not foresee" not in delivery.reason, delivery.reason
    assert "status" in delivery.reason, delivery.reason


@pytest.mark.parametrize("outstanding", ["abc", "1E+999999", ["39.70"], "NaN", "39.701"])
def test_a_total_outstanding_that_cannot_be_read_is_refused_with_its_reason(tea_house, outstanding):
    order = shopify.order(financial_status="partially_paid")
    money(order, "current_total_price", "59.70")
    order["total_outstanding"] = outstanding
    delivery = deliver("orders/create", order)
    assert delivery.outcome == Outcome.COULD_NOT_USE
    assert "total_outstanding" in delivery.reason, delivery.reason
    assert "did not foresee" not in delivery.reason, delivery.reason


@pytest.mark.parametrize(("current", "outstanding"), [("59.70", "-100.00"), ("5000.00", "0.00")])
def test_figures_beyond_the_total_count_no_more_than_the_total(tea_house, current, outstanding):
    # a payload whose figures say more came in than the order's total: paid its total, no more
    order = shopify.order(financial_status="partially_paid")
    money(order, "current_total_price", current)
    order["total_outstanding"] = outstanding
    delivery = deliver("orders/create", order)
    assert tea_house_order().paid_minor == 5970, delivery.reason
