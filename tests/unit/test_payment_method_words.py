"""The payment method a confirmation shows is in words a customer reads: Shopify names an order's
gateways by its codes ("shopify_payments", "bogus" for its test gateway), which the reading puts
into words; a manual payment method keeps the merchant's own name; WooCommerce's title is
already words, and is preferred to its code."""

from typing import Any

import pytest

from intake.shapes import PlatformOrder
from intake.shopify.gateways import payment_method_words
from intake.shopify.order import order_from_payload as shopify_order
from intake.woocommerce.order import order_from_payload as woocommerce_order
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woocommerce


def _content(order: PlatformOrder) -> dict[str, Any]:
    assert order.content is not None, order.content_refused
    return order.content


@pytest.mark.parametrize(
    ("gateways", "words"),
    [
        (["shopify_payments"], "Shopify Payments"),
        (["paypal"], "PayPal"),
        (["manual"], "Manual payment"),
        (["cash_on_delivery"], "Cash on Delivery (COD)"),
        (["bogus"], "Test payment"),  # Shopify's test gateway: a test order
        (["gift_card", "shopify_payments"], "Gift card, Shopify Payments"),
        # a code of a gateway the table does not know, made readable
        (["authorize_net"], "Authorize net"),
        (["stripe"], "Stripe"),
        # a manual payment method is named by the merchant: kept as written
        (["Cash on Delivery (COD)"], "Cash on Delivery (COD)"),
        (["Bank Deposit"], "Bank Deposit"),
        # two names for one method are said once
        (["cash_on_delivery", "Cash on Delivery (COD)"], "Cash on Delivery (COD)"),
    ],
)
def test_a_shopify_order_s_gateways_are_shown_in_words(gateways, words):
    # when
    content = _content(shopify_order(shopify.order(payment_gateway_names=gateways)))
    # then
    assert content["payment_method"] == words
    assert payment_method_words(gateways) == words


@pytest.mark.parametrize("gateways", [[], [""], None])
def test_a_shopify_order_that_names_no_gateway_shows_no_payment_line(gateways):
    content = _content(shopify_order(shopify.order(payment_gateway_names=gateways)))
    assert "payment_method" not in content


def test_a_woocommerce_order_shows_its_payment_method_s_title_not_its_code():
    payload = woocommerce.order(payment_method="bacs", payment_method_title="Direct bank transfer")
    assert _content(woocommerce_order(payload))["payment_method"] == "Direct bank transfer"
