"""A shop's order placed through the API and emailed by a real worker through RabbitMQ and the
mail simulator: the confirmation lists what was bought, in the version of the order its event
saw; each parcel is an email of its own, once, and never before the confirmation."""

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from notifications.content.preview import notification_preview_now
from notifications.models import Notification
from operations.review.services import notification_reject
from orders.models import Order, OrderVersion
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _place(api_token: str, body: dict) -> Order:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    response = client.post("/api/orders/", body, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _sent(order: Order) -> Notification:
    return wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").first(),
        timeout=30,
        message="the confirmation sent",
    )


def test_the_confirmation_a_customer_receives_lists_what_was_bought(api_token, mailsim, start_worker):
    # given
    start_worker()
    # when
    order = _place(api_token, shop_order_body(customer_email="lines@example.com"))
    # then
    notification = _sent(order)
    assert notification.content_version == 1
    [message] = [m for m in mailsim.messages() if m["to"] == ["lines@example.com"]]
    for expected in (
        "Your order 1001 at",
        "2 × Green tea (TEA-GREEN)",  # noqa: RUF001
        "€12.50 each, tax 7%: €25.00",
        "1 × Mug (MUG-1)",  # noqa: RUF001
        "Shipping (DHL Paket): €4.90",
        "Discount (Welcome): −€5.00",  # noqa: RUF001
        "Total: €34.80",
        "Including taxes of €2.96",
        "Hauptstraße 1\n10115 Berlin\nGermany",
    ):
        assert expected in message["subject"] + "\n" + message["text"], expected
    assert "Green tea" in message["html"]
    assert "Hauptstraße 1" in message["html"]


def test_the_email_shows_the_version_its_event_saw(api_token, mailsim, start_worker):
    # given an order whose confirmation is recorded (version 1) but not yet sent
    order = _place(api_token, shop_order_body(customer_email="versions@example.com"))
    # when the order changes before the first attempt: a new version, as every change writes it
    changed = shop_order_body(customer_email="versions@example.com")
    changed["lines"][0]["name"] = "Black tea"
    with transaction.atomic():
        OrderVersion.objects.create(order=order, number=2, content=changed, total_minor=changed["total"])
        Order.objects.filter(pk=order.pk).update(content_version=2)
    start_worker()
    # then the confirmation shows version 1, the one its event saw
    notification = _sent(order)
    assert notification.content_version == 1
    assert "2 × Green tea (TEA-GREEN)" in notification.email_text  # noqa: RUF001
    assert "Black tea" not in notification.email_text
    assert "Black tea" not in notification.email_html
    [message] = [m for m in mailsim.messages() if m["to"] == ["versions@example.com"]]
    assert message["text"] == notification.email_text


def test_an_order_placed_with_the_short_body_is_confirmed_with_its_amount(api_token, mailsim, start_worker):
    # given
    start_worker()
    # when
    order = _place(api_token, {"customer_email": "short@example.com", "amount": "49.90", "currency": "EUR"})
    # then
    notification = _sent(order)
    assert notification.content_version is None
    assert "Amount: €49.90" in notification.email_text
    assert "What you ordered" not in notification.email_text


def _ship(api_token: str, order: Order, body: dict) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    response = client.post(f"/api/orders/{order.id}/shipments/", body, format="json")
    assert response.status_code == 201, response.content


def _all_sent(order: Order, count: int) -> list[Notification]:
    def sent():
        emails = list(Notification.objects.filter(order=order, status="sent").order_by("sent_at"))
        return emails if len(emails) == count else None

    return wait_until(sent, timeout=40, message=f"{count} emails of the order sent")


def test_each_parcel_is_emailed_once_and_never_before_the_confirmation(api_token, mailsim, start_worker):
    # given the confirmation is held at the provider for a moment, so the parcels come first
    mailsim.set_faults({"kind": "hold", "seconds": 2, "to_contains": "parcels@", "times": 1})
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _place(api_token, shop_order_body(customer_email="parcels@example.com"))
    # when two parcels are announced at once
    _ship(
        api_token,
        order,
        {"shipment_id": "P1", "carrier": "DHL", "lines": [{"sku": "TEA-GREEN", "quantity": 2}]},
    )
    _ship(
        api_token,
        order,
        {
            "shipment_id": "P2",
            "carrier": "UPS",
            "tracking_number": "1Z999",
            "tracking_url": "https://www.ups.com/track?tracknum=1Z999",
        },
    )
    # then three emails, each once, the confirmation first
    emails = _all_sent(order, 3)
    assert emails[0].kind == "order_confirmation"
    assert {email.kind for email in emails[1:]} == {"order_shipment"}
    messages = [m for m in mailsim.messages() if m["to"] == ["parcels@example.com"]]
    assert len(messages) == 3
    assert len({m["idempotency_key"] for m in messages}) == 3
    confirmation, *parcels = sorted(messages, key=lambda m: m["accepted_at"])
    assert confirmation["subject"].endswith("is confirmed")
    by_carrier = {("DHL" if "DHL" in m["text"] else "UPS"): m for m in parcels}
    assert "2 × Green tea (TEA-GREEN)" in by_carrier["DHL"]["text"]  # noqa: RUF001
    assert "Mug" not in by_carrier["DHL"]["text"]
    assert "1 × Mug (MUG-1)" in by_carrier["UPS"]["text"]  # noqa: RUF001
    assert "Tracking number: 1Z999" in by_carrier["UPS"]["text"]
    assert 'href="https://www.ups.com/track?tracknum=1Z999"' in by_carrier["UPS"]["html"]


def test_a_parcel_waits_while_its_confirmation_waits_for_a_person(api_token, mailsim, start_worker):
    # given the provider refuses the confirmation: it fails and waits for a reviewer
    mailsim.set_faults({"kind": "reject", "to_contains": "review@", "times": 1})
    start_worker(EMAIL_FOLLOWING_PERSON_WAIT_SECONDS="1")
    order = _place(api_token, shop_order_body(customer_email="review@example.com"))
    confirmation = wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="failed").first(),
        timeout=30,
        message="the confirmation failed",
    )
    # when a parcel is announced
    _ship(api_token, order, {"shipment_id": "P1", "carrier": "DHL"})
    # then its email waits, saying why
    waiting = wait_until(
        lambda: Notification.objects.filter(
            order=order, kind="order_shipment", last_error__startswith="It follows the order confirmation"
        ).first(),
        timeout=30,
        message="the parcel's email waiting, with its reason",
    )
    assert waiting.status == "pending"
    assert "waits for a person" in waiting.last_error
    assert not [m for m in mailsim.messages() if m["to"] == ["review@example.com"]]
    # and once a reviewer rejects the confirmation, the parcel's email goes
    notification_reject(notification=confirmation, actor=None, actor_name="rita", comment="wrong shop")
    sent = wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_shipment", status="sent").first(),
        timeout=30,
        message="the parcel's email sent",
    )
    [message] = [m for m in mailsim.messages() if m["to"] == ["review@example.com"]]
    assert message["idempotency_key"] == sent.idempotency_key


def test_a_refund_follows_the_confirmation_and_a_cancellation_tells_its_own(
    api_token, mailsim, start_worker, settings
):
    # given (paid after its placing: its invoice's own email is tested in tests/integration/invoices/)
    settings.INVOICE_ISSUED_WHEN = "off"
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _place(api_token, shop_order_body(customer_email="refunds@example.com"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    assert client.post(f"/api/orders/{order.id}/pay/", format="json").status_code == 200
    # when a line is refunded at once, then the rest with the cancellation
    refunded = client.post(
        f"/api/orders/{order.id}/refunds/",
        {
            "refund_id": "R1",
            "amount": 1250,
            "lines": [{"sku": "TEA-GREEN", "quantity": 1}],
            "reason": "Damaged",
        },
        format="json",
    )
    assert refunded.status_code == 201, refunded.content
    emails = _all_sent(order, 2)
    cancelled = client.post(
        f"/api/orders/{order.id}/cancel/",
        {"refund": {"refund_id": "C1", "amount": 2230, "reason": "Cancelled at your request"}},
        format="json",
    )
    assert cancelled.status_code == 200, cancelled.content
    emails = _all_sent(order, 3)
    # then the confirmation, the refund, the cancellation: one each, in that order
    assert [email.kind for email in emails] == ["order_confirmation", "order_refund", "order_cancellation"]
    messages = sorted(
        (m for m in mailsim.messages() if m["to"] == ["refunds@example.com"]), key=lambda m: m["accepted_at"]
    )
    assert len(messages) == 3
    refund, cancellation = messages[1], messages[2]
    assert refund["subject"] == "We refund €12.50 for your order 1001"
    assert "Reason: Damaged" in refund["text"]
    assert "1 × Green tea (TEA-GREEN)" in refund["text"]  # noqa: RUF001
    assert "We refund €22.30 to you; the money goes back the way you paid." in cancellation["text"]
    assert "- €22.30: Cancelled at your request" in cancellation["text"]
    assert "If you paid for it" not in cancellation["text"]


def test_a_cancellation_after_a_refund_promises_only_what_is_left(api_token, mailsim, start_worker, settings):
    # given: a paid order of €34.80, €12.50 of it refunded and emailed (its invoice's own email
    # is tested in tests/integration/invoices/)
    settings.INVOICE_ISSUED_WHEN = "off"
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _place(api_token, shop_order_body(customer_email="rest@example.com"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    assert client.post(f"/api/orders/{order.id}/pay/", format="json").status_code == 200
    refunded = client.post(
        f"/api/orders/{order.id}/refunds/", {"refund_id": "R1", "amount": 1250}, format="json"
    )
    assert refunded.status_code == 201, refunded.content
    _all_sent(order, 2)
    # when: it is cancelled without announcing a refund
    assert client.post(f"/api/orders/{order.id}/cancel/", {}, format="json").status_code == 200
    _all_sent(order, 3)
    # then: the cancellation says what was refunded and promises the rest, not the whole amount
    [cancellation] = [
        m for m in mailsim.messages() if m["to"] == ["rest@example.com"] and "cancelled" in m["subject"]
    ]
    assert "You were refunded €12.50 already; we refund the remaining €22.30 to you." in cancellation["text"]
    assert "we refund €34.80" not in cancellation["text"]
    # and the preview a reviewer opens reads the same (its rows read by the ORM, not the claim)
    email = Notification.objects.get(order=order, kind="order_cancellation")
    rendered = notification_preview_now(email).email
    assert rendered is not None
    assert "we refund the remaining €22.30" in rendered.text
