"""An order's amount has no more decimals than its currency has (ISO 4217 codes, with their
decimals from Babel's CLDR data) nor than the order keeps (2), and its currency is one in use:
otherwise a 400 that names the currency and says why. Nothing is rounded on the way, and the
customer's email shows the amount as the currency writes it."""

from decimal import Decimal

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.content.formatting import money_format
from orders.currencies import MoneyRefused
from orders.models import Order
from orders.services import order_create

pytestmark = pytest.mark.django_db

ORDER = {"customer_email": "ada@example.com"}
KEEPS_TWO = "but orders keep amounts to 2 decimals"


@pytest.mark.parametrize(
    ("amount", "currency", "reason"),
    [
        ("0.01", "JPY", "JPY amounts have no decimals, and 0.01 needs 2."),
        ("1500.5", "JPY", "JPY amounts have no decimals, and 1500.5 needs 1."),
        ("10.50", "HUF", "HUF amounts have no decimals, and 10.50 needs 1."),
        ("12.345", "EUR", "EUR amounts have at most 2 decimals, and 12.345 needs 3."),
        ("1.2345", "KWD", "KWD amounts have at most 3 decimals, and 1.2345 needs 4."),
        (
            "1.255",
            "KWD",
            f"KWD amounts have at most 3 decimals, {KEEPS_TWO}: 1.255 cannot be kept without rounding. "
            "Send it with at most 2 decimals.",
        ),
        ("1E-1000000", "EUR", "EUR amounts have at most 2 decimals, and 1E-1000000 needs 1000000."),
        ("0", "EUR", "The amount must be a number greater than zero."),
        ("10000000000", "EUR", "The amount must be less than 10,000,000,000."),
    ],
)
def test_an_amount_the_currency_or_the_order_cannot_hold_is_a_400_naming_the_currency(
    client, amount, currency, reason
):
    response = client.post("/api/orders/", {**ORDER, "amount": amount, "currency": currency}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"] == {"amount": [reason]}
    assert not Order.objects.exists()
    assert not OutboxEvent.objects.exists()


@pytest.mark.parametrize(
    ("currency", "reason"),
    [
        ("XYZ", "XYZ is not an ISO 4217 currency code."),
        *(
            (
                code,
                f"{code} is not legal tender anywhere today (a withdrawn currency, a fund or a precious "
                "metal): use the currency the customer pays in.",
            )
            for code in ("DEM", "HRK", "XAU", "XTS")
        ),
    ],
)
def test_a_currency_not_in_use_is_a_400_with_its_reason(client, currency, reason):
    response = client.post("/api/orders/", {**ORDER, "amount": "10.00", "currency": currency}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"] == {"currency": [reason]}
    assert not Order.objects.exists()


@pytest.mark.parametrize(
    ("amount", "currency", "stored", "shown"),
    [
        ("1500", "JPY", "1500.00", "¥1,500"),
        ("1500.00", "JPY", "1500.00", "¥1,500"),  # trailing zeros are no decimals
        (1500, "JPY", "1500.00", "¥1,500"),  # a JSON number
        ("49.9", "EUR", "49.90", "€49.90"),
        ("1.250", "KWD", "1.25", "KWD1.250"),  # a third decimal of 0 fits the order's two
        ("0.5", "BHD", "0.50", "BHD0.500"),
    ],
)
def test_an_amount_that_fits_is_kept_exactly_and_emailed_as_the_currency_writes_it(
    client, mailsim, amount, currency, stored, shown
):
    response = client.post("/api/orders/", {**ORDER, "amount": amount, "currency": currency}, format="json")
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    assert (str(order.amount), response.json()["amount"]) == (stored, stored)
    # when its confirmation goes out (the handler, against the mail simulator)
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    event_dispatch(raw_envelope=envelope, delivery=Delivery(worker="test pid 1", retries=0, max_retries=8))
    # then the email shows the amount with the currency's own decimals
    [message] = mailsim.messages()
    assert f"Amount: {shown}\n" in message["text"]


def test_a_retry_across_the_rule_keeps_its_fingerprint(client):
    # "49.9" was fingerprinted as "49.90" (two decimals) before the currency rule: it still is
    key = {"HTTP_IDEMPOTENCY_KEY": "checkout-7"}
    first = client.post("/api/orders/", {**ORDER, "amount": "49.9", "currency": "EUR"}, format="json", **key)
    again = client.post("/api/orders/", {**ORDER, "amount": "49.90", "currency": "EUR"}, format="json", **key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]


def test_no_caller_of_the_service_can_place_an_amount_its_currency_cannot_hold():
    with pytest.raises(MoneyRefused, match="JPY amounts have no decimals"):
        order_create(customer_email="ada@example.com", amount=Decimal("0.01"), currency="JPY")
    assert not Order.objects.exists()


def test_an_amount_stored_before_the_rule_is_emailed_unrounded():
    assert money_format(Decimal("0.01"), "JPY", "en") == "¥0.01"
    assert money_format(Decimal("1500.00"), "JPY", "ru") == "1\xa0500\xa0¥"
