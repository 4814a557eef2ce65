"""An order's changes through the real worker and the mail simulator: each "order changed" email
sent once under its own key, after the confirmation and after the change before it, saying what
changed and the new total; skipped when the order was cancelled before its turn."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from notifications.models import Notification
from orders.models import Order
from tests.shop_order_bodies import SHOP_ORDER, shop_order_body
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

TEA, MUG = SHOP_ORDER["lines"]
# Three teas, the mug gone, a cup added: 37.50 + 6.90 + 4.90 shipping - 5.00 = 44.30
EDITED: dict[str, Any] = {
    "lines": [
        TEA | {"quantity": 3, "total": 3750},
        {"sku": "CUP-1", "name": "Cup", "quantity": 1, "unit_price": 690, "total": 690, "tax_rate": "0.19"},
    ],
    "total": 4430,
}
# Then the mug back: 37.50 + 6.90 + 9.90 + 4.90 - 5.00 = 54.20
EDITED_AGAIN = {"lines": [*EDITED["lines"], MUG], "total": 5420}


def _client(api_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


def _place(api_token: str, address: str) -> Order:
    response = _client(api_token).post("/api/orders/", shop_order_body(customer_email=address), format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _edit(api_token: str, order: Order, body: dict) -> None:
    response = _client(api_token).patch(f"/api/orders/{order.id}/", body, format="json")
    assert response.status_code == 200, response.content


def _finished(order: Order, count: int) -> list[Notification]:
    def finished():
        emails = list(
            Notification.objects.filter(order=order, status__in=Notification.DONE_STATUSES).order_by(
                "status_changed_at"
            )
        )
        return emails if len(emails) == count else None

    return wait_until(finished, timeout=40, message=f"{count} emails of the order finished")


def _messages(mailsim, address: str) -> list[dict]:
    return sorted((m for m in mailsim.messages() if m["to"] == [address]), key=lambda m: m["accepted_at"])


def test_each_change_is_told_once_after_the_confirmation_and_the_change_before_it(
    api_token, mailsim, start_worker
):
    # given: the confirmation held at the provider, so both changes are recorded before it goes
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "changes@", "times": 1})
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _place(api_token, "changes@example.com")
    # when: two changes, one after the other
    _edit(api_token, order, EDITED)
    _edit(api_token, order, EDITED_AGAIN)
    emails = _finished(order, 3)
    # then: the customer reads them in order, each once under its own key
    assert [email.kind for email in emails] == ["order_confirmation", "order_edit", "order_edit"]
    assert all(email.status == "sent" for email in emails)
    messages = _messages(mailsim, "changes@example.com")
    assert len(messages) == 3
    assert len({m["idempotency_key"] for m in messages}) == 3
    first, second = messages[1], messages[2]
    assert first["subject"] == "Your order 1001 at Example Shop was changed" or first["subject"].endswith(
        "was changed"
    )
    assert "+ 1 × Cup added (CUP-1)" in first["text"]  # noqa: RUF001
    assert "- Mug removed (MUG-1)" in first["text"]
    assert "* Green tea: now 3 (was 2) (TEA-GREEN)" in first["text"]
    assert "New total: €44.30 (was €34.80)" in first["text"]
    assert "+ 1 × Mug added (MUG-1)" in second["text"]  # noqa: RUF001
    assert "New total: €54.20 (was €44.30)" in second["text"]


def test_a_change_the_order_was_cancelled_after_is_skipped_for_its_cancellation(
    api_token, mailsim, start_worker
):
    # given: the confirmation held at the provider while the order changes and is cancelled
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "undone@", "times": 1})
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _place(api_token, "undone@example.com")
    _edit(api_token, order, EDITED)
    assert _client(api_token).post(f"/api/orders/{order.id}/cancel/", {}, format="json").status_code == 200
    # when
    emails = {email.kind: email for email in _finished(order, 3)}
    # then: the change is not told; the cancellation is
    assert emails["order_edit"].status == "skipped"
    assert "cancelled" in emails["order_edit"].last_error
    assert emails["order_cancellation"].status == "sent"
    assert not any("was changed" in m["subject"] for m in _messages(mailsim, "undone@example.com"))
