"""Saleor's deliveries at /shops/<slug>/webhook: the detached JWS checked against the shop's
published keys (fetched over HTTP, kept, fetched again for a key it does not know, never more
than once in the refetch interval), each delivery stored once by its body (a retry sends the same
bytes), and the order's life (paid, parcels, refunds, cancelled) turned into its emails once."""

import base64
import copy
import logging

import jwt
import pytest

from intake.models import PlatformDelivery
from intake.saleor import signature
from notifications.models import Notification
from orders.models import Order, Refund, Shipment
from shops.models import Shop
from tests import saleor_payloads as saleor
from tests.saleor_keys import SaleorKeys

pytestmark = pytest.mark.django_db
WEBHOOK = "/shops/tea-house-saleor/webhook"


@pytest.fixture
def shop(keys) -> Shop:
    return Shop.objects.create(
        slug="tea-house-saleor", name="Tea House", platform=Shop.Platform.SALEOR, domain=keys.api_url
    )


@pytest.fixture
def deliver(client, keys, shop):
    def post(event_type: str, payload: dict, *, body: bytes | None = None, **headers):
        body = body if body is not None else saleor.body_of(payload)
        signed = (
            saleor.delivery_headers(event_type=event_type, signature=keys.sign(body), api_url=keys.api_url)
            | headers
        )
        return client.post(WEBHOOK, body, content_type="application/json", **signed)

    return post


def _emails(order: Order) -> list[tuple[str, str]]:
    return sorted((n.kind, n.status) for n in Notification.objects.filter(order=order))


def test_a_new_order_is_stored_with_its_lines_priced_with_their_taxes(deliver, shop, keys):
    # when: a customer who shops in Russian
    response = deliver("order_created", saleor.event("OrderCreated", saleor.order(languageCodeEnum="RU_RU")))
    # then
    assert (response.status_code, response.json()["detail"]) == (200, "used")
    assert keys.fetches == 1
    order = Order.objects.get(shop=shop, platform_order_id=saleor.ORDER_ID)
    assert (order.number, order.customer_email, order.customer_name, order.locale) == (
        "1042",
        "ada@example.com",
        "Ada Lovelace",
        "ru",
    )
    assert (str(order.amount), order.currency, order.status) == ("59.70", "EUR", "paid")
    content = order.versions.get().content
    assert [
        (line["sku"], line["name"], line["quantity"], line["unit_price"], line["total"], line["tax_rate"])
        for line in content["lines"]
    ] == [
        ("TEA-GREEN", "Green tea (100 g)", 2, 1290, 2580, "0.19"),
        ("item-7c3d9e41-1a2b-4c5d-8e9f-0a1b2c3d4e5f", "Teapot", 1, 3400, 3400, "0.19"),
    ]
    # the teapot has no SKU: its key is its line's id, marked so that its emails do not show it
    assert [line.get("sku_is_line_id", False) for line in content["lines"]] == [False, True]
    assert content["shipping"] == {"method": "DHL Paket", "price": 490}
    assert content["discounts"] == [{"amount": 500, "description": "Welcome", "code": "WELCOME5"}]
    assert (content["tax_total"], content["total"], content["payment_method"]) == (953, 5970, "Credit card")
    assert content["shipping_address"]["line1"] == "Unter den Linden 1"
    assert _emails(order) == [("order_confirmation", "pending")]


def test_a_delivery_sent_again_with_the_same_bytes_is_stored_once(deliver, shop, keys):
    # given
    body = saleor.body_of(saleor.event("OrderCreated", saleor.ORDER))
    first = deliver("order_created", {}, body=body)
    # when: Saleor's retry, and the dashboard's "resend", post the stored payload again
    again = deliver("order_created", {}, body=body)
    # then
    assert (first.json()["detail"], again.json()["detail"]) == ("used", "duplicate")
    assert PlatformDelivery.objects.count() == 1
    assert _emails(Order.objects.get()) == [("order_confirmation", "pending")]
    assert keys.fetches == 1  # the keys were kept


def test_a_discount_already_in_the_lines_prices_is_not_taken_off_twice(deliver, shop):
    # given: Saleor spread the order's discount over its lines (their prices are after it)
    payload = saleor.order(
        total={"currency": "EUR", "gross": {"amount": 64.7}, "tax": {"amount": 10.33}},
    )
    # when
    response = deliver("order_created", saleor.event("OrderCreated", payload))
    # then
    assert response.json()["detail"] == "used"
    assert "discounts" not in Order.objects.get().versions.get().content


@pytest.mark.parametrize(
    ("tamper", "detail"),
    [
        (lambda h, k: h | {"HTTP_SALEOR_SIGNATURE": ""}, "not signed"),
        (lambda h, k: h | {"HTTP_SALEOR_SIGNATURE": "ab12" * 16}, "not a JWS"),
        (lambda h, k: h | {"HTTP_SALEOR_API_URL": "https://other.saleor.example/graphql/"}, "not http"),
    ],
    ids=["unsigned", "a secret key's HMAC", "another instance"],
)
def test_a_delivery_not_proven_to_be_this_shops_is_refused(client, keys, shop, tamper, detail):
    body = saleor.body_of(saleor.event("OrderCreated", saleor.ORDER))
    headers = saleor.delivery_headers(
        event_type="order_created", signature=keys.sign(body), api_url=keys.api_url
    )
    response = client.post(WEBHOOK, body, content_type="application/json", **tamper(headers, keys))
    assert response.status_code == 401
    assert detail in response.json()["detail"]
    assert not PlatformDelivery.objects.exists()


def test_a_changed_body_or_another_key_does_not_verify(client, keys, shop):
    # given
    body = saleor.body_of(saleor.event("OrderCreated", saleor.ORDER))
    signed = keys.sign(body)
    changed = body.replace(b'"amount":59.7', b'"amount":5.97')
    forger = SaleorKeys()  # a key of its own, claiming the shop's key id
    forged = saleor.signature_of(body, forger.private_key, keys.kid)
    forger.close()
    # when
    answers = [
        client.post(
            WEBHOOK,
            sent,
            content_type="application/json",
            **saleor.delivery_headers(event_type="order_created", signature=sig, api_url=keys.api_url),
        )
        for sent, sig in ((changed, signed), (body, forged))
    ]
    # then
    assert [a.status_code for a in answers] == [401, 401]
    assert all("does not verify" in a.json()["detail"] for a in answers)
    assert not PlatformDelivery.objects.exists()


def _customer_token(keys: SaleorKeys, body: bytes) -> str:
    """What Saleor's `tokenCreate` hands any customer who registers on the storefront: a compact
    RS256 JWT signed with the same private key and key id as its webhooks
    (saleor/core/jwt_manager.py `jwt_encode`); long expired, which changes nothing."""
    payload = {"token": "c7a1", "email": "mallory@example.com", "type": "access", "exp": 1}
    return jwt.encode(payload, keys.private_key, algorithm="RS256", headers={"kid": keys.kid})


def _empty_payload(keys: SaleorKeys, body: bytes) -> str:
    """A compact JWS of nothing: "<header>..<signature>", the shape of a detached one."""
    return jwt.api_jws.encode(b"", keys.private_key, algorithm="RS256", headers={"kid": keys.kid})


def _unencoded_without_crit(keys: SaleorKeys, body: bytes) -> str:
    """The body signed unencoded, but without declaring b64 critical, which RFC 7797 requires:
    a receiver that does not know b64 would read the signature over other bytes."""
    return jwt.api_jws.encode(
        body, keys.private_key, algorithm="RS256", headers={"kid": keys.kid}, is_payload_detached=True
    )


@pytest.mark.parametrize(
    "forge",
    [_customer_token, _empty_payload, _unencoded_without_crit],
    ids=["a customer's access token", "a signed empty payload", "b64 false without crit"],
)
def test_a_token_signed_with_the_shops_key_but_not_over_the_body_is_refused(client, keys, shop, forge):
    # given: a body of the attacker's choosing, "signed" with something the shop's key made
    body = saleor.body_of(
        saleor.event("OrderCreated", saleor.order(userEmail="victim@example.com", number="6666"))
    )
    headers = saleor.delivery_headers(
        event_type="order_created", signature=forge(keys, body), api_url=keys.api_url
    )
    # when
    response = client.post(WEBHOOK, body, content_type="application/json", **headers)
    # then
    assert response.status_code == 401
    assert "detached" in response.json()["detail"]
    assert not PlatformDelivery.objects.exists()
    assert not Order.objects.exists()


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The key cache's clock, moved by the test: now[0] += seconds."""
    now = [1_000.0]
    monkeypatch.setattr(signature, "monotonic", lambda: now[0])
    return now


def test_a_rotated_key_is_fetched_once_and_made_up_key_ids_do_not_hammer_it(
    deliver, client, keys, shop, clock
):
    # given: the keys fetched and kept
    deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # when: Saleor's key rotated, a minute later
    clock[0] += 60
    keys.rotate()
    paid = saleor.event("OrderFullyPaid", saleor.ORDER, issued_at="2026-11-30T09:31:00+00:00")
    rotated = deliver("order_fully_paid", paid)
    # then
    assert (rotated.status_code, keys.fetches) == (200, 2)
    # when: deliveries naming key ids the shop never published, within the refetch interval
    clock[0] += signature.REFETCH_AT_MOST_EVERY - 1
    body = saleor.body_of(saleor.event("OrderCreated", saleor.ORDER))
    made_up = [
        client.post(
            WEBHOOK,
            body,
            content_type="application/json",
            **saleor.delivery_headers(
                event_type="order_created",
                signature=saleor.signature_of(body, keys.private_key, f"made-up-{n}"),
                api_url=keys.api_url,
            ),
        )
        for n in range(5)
    ]
    # then: refused, and the shop was asked once more at most
    assert {a.status_code for a in made_up} == {401}
    assert "publishes no key made-up-0" in made_up[0].json()["detail"]
    assert keys.fetches == 2
    # when: the interval has passed
    clock[0] += 1
    again = deliver(
        "order_created",
        {},
        body=body,
        HTTP_SALEOR_SIGNATURE=saleor.signature_of(body, keys.private_key, "made-up-5"),
    )
    # then: the shop is asked once more, and the key is still not there
    assert (again.status_code, keys.fetches) == (401, 3)


def test_keys_that_cannot_be_fetched_answer_503_so_saleor_sends_again(deliver, keys, shop, clock):
    # given
    keys.status = 503
    payload = saleor.event("OrderCreated", saleor.ORDER)
    # when
    refused = deliver("order_created", payload)
    # then
    assert refused.status_code == 503
    assert "cannot be checked now" in refused.json()["detail"]
    assert not PlatformDelivery.objects.exists()
    # when: sent again at once, the shop is not asked again
    assert deliver("order_created", payload).status_code == 503
    assert keys.fetches == 1
    # when: its Saleor is back, and the delivery comes again after the refetch interval
    keys.status = 200
    clock[0] += signature.REFETCH_AT_MOST_EVERY
    # then
    assert deliver("order_created", payload).json()["detail"] == "used"


def test_keys_that_cannot_be_fetched_answer_503_without_the_cause_which_goes_to_the_log(
    deliver, keys, shop, settings, caplog
):
    # given: production, where the keys are never asked of this machine: the fetch's refusal
    # names the address the shop's host resolved to
    settings.HTTPS_ONLY = True
    settings.SHOP_FETCH_PRIVATE_ADDRESSES = False
    # when: anyone posts a delivery
    with caplog.at_level(logging.WARNING, logger="intake.saleor.signature"):
        refused = deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # then: the caller hears that the keys cannot be fetched now, not why
    assert refused.status_code == 503
    detail = refused.json()["detail"]
    assert "the shop's keys cannot be fetched now" in detail
    assert "127.0.0.1" not in detail
    assert "not asked" not in detail
    # and the cause is in the log, for the operators
    assert any("not asked" in r.getMessage() for r in caplog.records if r.name == "intake.saleor.signature")
    assert keys.fetches == 0
    assert not PlatformDelivery.objects.exists()


def test_a_jws_header_nested_deep_is_refused_401_before_any_parser_or_key(client, keys, shop):
    # given: a Saleor-Signature whose header is JSON nested 1,500 levels (4 kB, well within the
    # web servers' header limits), which PyJWT's parser would recurse into until RecursionError
    header = b'{"a":' + b"[" * 1500 + b"]" * 1500 + b"}"
    token = base64.urlsafe_b64encode(header).rstrip(b"=").decode() + "..AAAA"
    body = saleor.body_of(saleor.event("OrderCreated", saleor.ORDER))
    headers = saleor.delivery_headers(event_type="order_created", signature=token, api_url=keys.api_url)
    # when
    response = client.post(WEBHOOK, body, content_type="application/json", **headers)
    # then
    assert response.status_code == 401
    assert "header nests 1501 levels deep" in response.json()["detail"]
    assert keys.fetches == 0
    assert not PlatformDelivery.objects.exists()


def test_the_life_of_an_order_becomes_its_emails_each_once(deliver, shop):
    # given
    unpaid = saleor.order(isPaid=False, chargeStatus="NONE", totalCharged=saleor.charged(0.0))
    deliver("order_created", saleor.event("OrderCreated", unpaid))
    assert Order.objects.get().status == "created"
    paid = saleor.order(updatedAt="2026-11-30T09:35:00+00:00")
    deliver("order_fully_paid", saleor.event("OrderFullyPaid", paid))
    # when: a first parcel (the tea), then the rest (the order fulfilled)
    tea = saleor.fulfillment(1, [(saleor.LINE_TEA, "TEA-GREEN", 2)], tracking="00340434161234567890")
    pot = saleor.fulfillment(2, [(saleor.LINE_POT, None, 1)])
    first = saleor.order(
        status="PARTIALLY_FULFILLED", updatedAt="2026-12-01T08:00:00+00:00", fulfillments=[tea]
    )
    deliver("fulfillment_created", saleor.event("FulfillmentCreated", first))
    both = copy.deepcopy(first) | {"status": "FULFILLED", "updatedAt": "2026-12-01T09:00:00+00:00"}
    both["fulfillments"] = [tea, pot]
    deliver("order_fulfilled", saleor.event("OrderFulfilled", both))
    # and: a refund of one bag
    refunded = copy.deepcopy(both) | {"updatedAt": "2026-12-02T10:00:00+00:00"}
    refunded["transactions"][0]["events"].append(saleor.refund_event(502, 12.9, "One bag arrived torn"))
    deliver("order_refunded", saleor.event("OrderRefunded", refunded))
    # then
    order = Order.objects.get()
    assert sorted(Shipment.objects.values_list("shop_shipment_id", "carrier", "tracking_number")) == [
        (saleor.global_id("Fulfillment", 1), "", "00340434161234567890"),
        (saleor.global_id("Fulfillment", 2), "", ""),
    ]
    assert [line["quantity"] for line in Shipment.objects.get(tracking_number="").lines] == [1]
    assert list(Refund.objects.values_list("amount_minor", "reason")) == [(1290, "One bag arrived torn")]
    assert _emails(order) == [
        ("order_confirmation", "pending"),
        ("order_invoice", "pending"),  # paid after its confirmation: the invoice has its own email
        ("order_refund", "pending"),
        ("order_shipment", "pending"),
        ("order_shipment", "pending"),
    ]


def test_a_cancellation_with_its_refund_and_a_late_older_state(deliver, shop):
    # given
    deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    cancelled = saleor.order(status="CANCELED", updatedAt="2026-12-01T09:00:00+00:00")
    cancelled["transactions"][0]["events"].append(saleor.refund_event(503, 59.7))
    deliver("order_cancelled", saleor.event("OrderCancelled", cancelled))
    # when: a fulfillment saved before the cancellation, delivered after it
    late = saleor.order(
        status="FULFILLED",
        updatedAt="2026-12-01T08:00:00+00:00",
        fulfillments=[saleor.fulfillment(1, [(saleor.LINE_TEA, "TEA-GREEN", 2)])],
    )
    stale = deliver("order_fulfilled", saleor.event("OrderFulfilled", late))
    # then
    order = Order.objects.get()
    assert (order.status, stale.json()["detail"]) == ("cancelled", "stale")
    assert list(Refund.objects.values_list("amount_minor", "in_cancellation")) == [(5970, True)]
    assert not Shipment.objects.exists()
    assert _emails(order) == [
        ("order_cancellation", "pending"),
        ("order_confirmation", "pending"),
    ]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"__typename": "OrderCreated", "issuedAt": "2026-11-30T09:30:08+00:00"}, "carries no order"),
        (saleor.event("OrderCreated", saleor.order(userEmail=None)), "names no email address (userEmail)"),
        (saleor.event("OrderCreated", saleor.order(shippingAddress=None)), "no shippingAddress"),
        (
            saleor.event("OrderCreated", saleor.order(discounts=[])),
            "Its amounts do not add up (total)",
        ),
    ],
    ids=["another query", "no address", "nothing to ship to", "does not add up"],
)
def test_an_order_that_cannot_be_used_is_kept_with_its_reason(deliver, shop, payload, reason):
    response = deliver("order_created", payload)
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    assert reason in PlatformDelivery.objects.get().reason
    assert not Order.objects.exists()


def test_events_that_send_no_email_are_answered_and_stored(deliver, shop):
    event = {"__typename": "ProductUpdated", "issuedAt": "2026-11-30T09:30:08+00:00"}
    response = deliver("product_updated", event)
    assert (response.status_code, response.json()["detail"]) == (200, "topic_unused")
