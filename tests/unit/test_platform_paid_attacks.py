"""Payloads that would make an order look paid, or paid in full, when its platform says it is
not: a Saleor flag or charge status of another JSON type than GraphQL's, and a WooCommerce order
that waits for a payment again with the `date_paid` of its first one (its edit's balance due)."""

import pytest

from intake.saleor.order import order_from_payload as saleor_order
from intake.woocommerce.order import order_from_payload as woocommerce_order
from tests import saleor_payloads as saleor
from tests import woocommerce_payloads as woocommerce

NOT_PAID = [
    {"isPaid": "false", "chargeStatus": "NONE"},
    {"isPaid": "no", "chargeStatus": "PARTIAL"},
    {"isPaid": [False], "chargeStatus": "NONE"},
    {"isPaid": False, "chargeStatus": ["FULL"]},
    {"isPaid": False, "chargeStatus": {"FULL": True}},
    {"isPaid": False, "chargeStatus": "full"},
]


@pytest.mark.parametrize("state", NOT_PAID, ids=[repr(state) for state in NOT_PAID])
def test_saleor_s_order_is_paid_only_by_graphql_s_true_or_a_paid_charge_status(state):
    # given: an order Saleor says nothing came in for, its fields of another JSON type
    payload = saleor.order(**state)
    payload |= {"transactions": [], "totalCharged": saleor.charged(0.0)}
    # when
    order = saleor_order(saleor.event("OrderCreated", payload))
    # then: not paid (no invoice issued), nor paid in full (no refund ceiling raised)
    assert (order.paid, order.paid_in_full) == (False, False)


@pytest.mark.parametrize("status", ["on-hold", "pending", "failed", "partial-payment", "partially-paid"])
def test_woocommerce_s_order_waiting_for_a_payment_again_is_paid_not_paid_in_full(status):
    order = woocommerce_order(woocommerce.order(status=status))
    assert (order.paid, order.paid_in_full) == (True, False)
