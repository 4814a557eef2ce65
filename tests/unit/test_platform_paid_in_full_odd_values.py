"""Odd values where a platform's payload says how much of an order came in (Shopify's
total_outstanding and current_total_price, Saleor's refunds' amounts): refused with the reason
(Unusable, which the delivery's record shows), never another exception (a 500 and the
platform's retries), and never read as more paid than the figures say."""

import copy
from typing import Any

import pytest

from intake.saleor.order import order_from_payload as saleor_order
from intake.shapes import Unusable
from intake.shopify.order import order_from_payload as shopify_order
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify

ODD = ["abc", "1e999999", [1], {"amount": "1"}, True, "NaN", "-Infinity", "9" * 40, "0.001", "1,000.00"]


@pytest.mark.parametrize("field", ["total_outstanding", "current_total_price"])
@pytest.mark.parametrize("value", ODD, ids=[repr(value) for value in ODD])
def test_shopify_s_odd_figures_of_what_came_in_are_refused_with_the_reason(field, value):
    figures = {"total_outstanding": "0.00", "current_total_price": "59.70"}
    payload: dict[str, Any] = copy.deepcopy(shopify.ORDER) | figures | {field: value}
    with pytest.raises(Unusable, match=field):
        shopify_order(payload)


def test_shopify_s_outstanding_in_another_currency_is_not_read_as_paid():
    # the shop's currency differs from the order's: its figures cannot be compared, and a
    # `partially_paid` order stays not paid in full however large the outstanding's sign says
    payload = copy.deepcopy(shopify.ORDER) | {"financial_status": "partially_paid", "currency": "USD"}
    payload |= {"presentment_currency": "EUR", "total_outstanding": "-1000.00"}
    assert shopify_order(payload).paid_in_full is False


@pytest.mark.parametrize("value", ODD, ids=[repr(value) for value in ODD])
def test_saleor_s_odd_refund_amounts_are_refused_with_the_reason(value):
    refund = saleor.refund_event(1, 0) | {"amount": {"amount": value}}
    refunded = saleor.order(transactions=[{"events": [refund]}])
    with pytest.raises(Unusable, match="amount"):
        saleor_order(saleor.event("OrderRefunded", refunded))
