"""Shopify's payment gateways in words a customer reads, for the confirmation's "Payment" line.

An order names its gateways (`payment_gateway_names`) by Shopify's codes for the gateways that
Shopify or a payment provider installs ("shopify_payments", "paypal", "bogus" for the test
gateway), and by the merchant's own words for a manual payment method it created ("Cash on
Delivery (COD)", "Bank Deposit"). A known code gets its name from the table; an unknown code is
made readable ("authorize_net" → "Authorize net") rather than left out, because an EU
confirmation must say how the customer pays, and such a code is nearly always a provider's
name; the merchant's words are kept as written."""

import re

GATEWAY_NAMES = {
    "shopify_payments": "Shopify Payments",
    "shopify_installments": "Shop Pay Installments",
    "paypal": "PayPal",
    "manual": "Manual payment",
    "cash_on_delivery": "Cash on Delivery (COD)",
    "bogus": "Test payment",  # Shopify's test gateway: only test orders carry it
    "gift_card": "Gift card",
}
# What a code looks like: lower-case words joined by underscores. A merchant's name has capitals
# or spaces, and is not touched.
_CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")


def gateway_words(name: str) -> str:
    if name in GATEWAY_NAMES:
        return GATEWAY_NAMES[name]
    if _CODE.fullmatch(name):
        return name.replace("_", " ").capitalize()
    return name


def payment_method_words(names: list[str]) -> str:
    """The gateways in words, each once, in the order's order."""
    return ", ".join(dict.fromkeys(gateway_words(name) for name in names))
