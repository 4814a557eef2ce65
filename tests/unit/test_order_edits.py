"""What an order's change says changed (orders/edits.py `lines_changed`), and when its email
goes (notifications/delivery/rules.py), on plain values."""

import pytest

from notifications.delivery.email_order import emails_followed
from notifications.delivery.rules import (
    CANCELLED_BEFORE_CHANGE_REASON,
    Action,
    Decision,
    EarlierEmail,
    earlier_emails_decide,
    order_state_decide,
)
from orders.edits import lines_changed


def _line(sku: str, quantity: int, price: int = 100, name: str = "") -> dict:
    return {"sku": sku, "name": name or sku.title(), "quantity": quantity, "unit_price": price}


def _content(*lines: dict) -> dict:
    return {"lines": list(lines)}


def test_added_removed_and_changed_lines_in_the_new_orders_order_then_the_removed():
    before = _content(_line("A", 1), _line("B", 2), _line("C", 1, 500))
    after = _content(_line("D", 4), _line("B", 3), _line("C", 1, 450), _line("E", 1))
    assert [(c["sku"], c["before"], c["after"]) for c in lines_changed(before, after)] == [
        ("D", 0, 4),
        ("B", 2, 3),
        ("C", 1, 1),  # its price changed
        ("E", 0, 1),
        ("A", 1, 0),
    ]
    [price] = [c for c in lines_changed(before, after) if c["sku"] == "C"]
    assert (price["unit_price_before"], price["unit_price_after"]) == (500, 450)


def test_a_line_that_is_the_same_is_no_change_even_split_in_two():
    before = _content(_line("A", 2), _line("B", 1))
    after = _content(_line("B", 1), _line("A", 1), _line("A", 1))
    assert lines_changed(before, after) == []


def test_a_change_email_follows_the_confirmation_and_the_change_before_it():
    assert emails_followed("order_edit", cancelled=False, answers_parcel=False) == (
        EarlierEmail.CONFIRMATION,
    )
    assert emails_followed("order_edit", cancelled=False, answers_parcel=False, follows_edit=True) == (
        EarlierEmail.CONFIRMATION,
        EarlierEmail.EARLIER_EDIT,
    )


@pytest.mark.parametrize(
    ("earlier_change", "action"),
    [("pending", Action.WAIT), ("failed", Action.WAIT), ("sent", Action.SEND), ("skipped", Action.SEND)],
)
def test_a_change_email_waits_for_the_change_before_it(earlier_change, action):
    decision = earlier_emails_decide(
        "order_edit",
        cancelled=False,
        earlier={EarlierEmail.CONFIRMATION: "sent", EarlierEmail.EARLIER_EDIT: earlier_change},
    )
    assert decision.action == action


def test_a_change_of_an_order_cancelled_by_its_turn_is_skipped():
    assert order_state_decide("order_edit", erased=False, suppressed="", cancelled=True) == Decision(
        Action.SKIP, CANCELLED_BEFORE_CHANGE_REASON
    )
    assert order_state_decide("order_edit", erased=False, suppressed="", cancelled=False) is None
