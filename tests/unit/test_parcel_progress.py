"""What a parcel's news does (orders/parcel_progress.py, `progress_decide`) and when its email
goes (notifications/delivery/rules.py), decided on plain values, without a database."""

from datetime import UTC, datetime, timedelta

import pytest

from notifications.delivery.email_order import emails_followed
from notifications.delivery.rules import (
    DELIVERED_SINCE_REASON,
    PARCEL_UNTOLD_REASON,
    Action,
    Decision,
    EarlierEmail,
    earlier_emails_decide,
    parcel_news_decide,
)
from orders.parcel_progress import (
    AFTER_DELIVERY_NOTE,
    ALREADY_TOLD_NOTE,
    OLDER_NOTE,
    SHOWN_ONLY_NOTE,
    ProgressDecision,
    happened_at_problem,
    progress_decide,
)

T = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)
NEWS_KINDS = ("parcel_out_for_delivery", "parcel_delivered", "parcel_delivery_failed")


@pytest.mark.parametrize(
    ("current", "current_at", "status", "happened_at", "emailed", "decision"),
    [
        # the first news of a parcel: each status, and what it records
        ("shipped", None, "in_transit", T, set(), ProgressDecision(True, "", SHOWN_ONLY_NOTE)),
        (
            "shipped",
            None,
            "out_for_delivery",
            T,
            set(),
            ProgressDecision(True, "parcel.out_for_delivery", ""),
        ),
        ("shipped", None, "delivered", T, set(), ProgressDecision(True, "parcel.delivered", "")),
        (
            "shipped",
            None,
            "attempted_delivery",
            T,
            set(),
            ProgressDecision(True, "parcel.delivery_failed", ""),
        ),
        ("shipped", None, "failure", T, set(), ProgressDecision(True, "parcel.delivery_failed", "")),
        # a failure after an attempt: the same email, told once
        (
            "attempted_delivery",
            T,
            "failure",
            T + timedelta(hours=1),
            {"parcel.delivery_failed"},
            ProgressDecision(True, "", ALREADY_TOLD_NOTE),
        ),
        # late news never takes the parcel back; the same moment is news (arrival decides)
        (
            "out_for_delivery",
            T,
            "in_transit",
            T - timedelta(seconds=1),
            set(),
            ProgressDecision(False, "", OLDER_NOTE),
        ),
        (
            "in_transit",
            T,
            "out_for_delivery",
            T,
            set(),
            ProgressDecision(True, "parcel.out_for_delivery", ""),
        ),
        # delivered is the end, whatever its time, and nothing after it counts
        (
            "failure",
            T,
            "delivered",
            T - timedelta(hours=2),
            set(),
            ProgressDecision(True, "parcel.delivered", ""),
        ),
        (
            "delivered",
            T,
            "out_for_delivery",
            T + timedelta(days=1),
            set(),
            ProgressDecision(False, "", AFTER_DELIVERY_NOTE),
        ),
        (
            "delivered",
            T,
            "delivered",
            T + timedelta(days=1),
            set(),
            ProgressDecision(False, "", AFTER_DELIVERY_NOTE),
        ),
    ],
)
def test_what_a_piece_of_news_does(current, current_at, status, happened_at, emailed, decision):
    assert (
        progress_decide(
            current=current,
            current_at=current_at,
            status=status,
            happened_at=happened_at,
            emailed=frozenset(emailed),
        )
        == decision
    )


def test_a_time_ahead_of_our_clock_by_more_than_the_slack_is_refused():
    now = T
    assert happened_at_problem(now + timedelta(minutes=59), now) == ""
    assert "after our clock" in happened_at_problem(now + timedelta(minutes=61), now)
    assert happened_at_problem(now - timedelta(days=3650), now) == ""


@pytest.mark.parametrize("kind", NEWS_KINDS)
def test_a_news_email_follows_the_confirmation_the_cancellation_of_a_cancelled_order_and_its_parcel(kind):
    assert emails_followed(kind, cancelled=False, answers_parcel=True) == (
        EarlierEmail.CONFIRMATION,
        EarlierEmail.PARCEL,
    )
    assert emails_followed(kind, cancelled=True, answers_parcel=True) == (
        EarlierEmail.CONFIRMATION,
        EarlierEmail.CANCELLATION,
        EarlierEmail.PARCEL,
    )


@pytest.mark.parametrize(
    ("kind", "progress", "decision"),
    [
        ("parcel_out_for_delivery", "delivered", Decision(Action.SKIP, DELIVERED_SINCE_REASON)),
        ("parcel_delivery_failed", "delivered", Decision(Action.SKIP, DELIVERED_SINCE_REASON)),
        ("parcel_delivered", "delivered", None),
        # back in transit before its turn: still told (the next setting out records no email)
        ("parcel_out_for_delivery", "in_transit", None),
        ("parcel_delivery_failed", "out_for_delivery", None),
    ],
)
def test_only_delivery_ends_a_news_email_before_its_turn(kind, progress, decision):
    assert parcel_news_decide(kind, progress=progress) == decision


@pytest.mark.parametrize(
    ("parcel_email", "action"),
    [
        ("pending", Action.WAIT),
        ("sending", Action.WAIT),
        ("failed", Action.WAIT),
        ("sent", Action.SEND),
        ("rejected", Action.SEND),  # the reviewer decided about that email, not the parcel
        ("skipped", Action.SKIP),  # the customer never heard of the parcel
    ],
)
def test_a_news_email_goes_after_its_parcels_shipped_email(parcel_email, action):
    decision = earlier_emails_decide(
        "parcel_delivered",
        cancelled=False,
        earlier={EarlierEmail.CONFIRMATION: "sent", EarlierEmail.PARCEL: parcel_email},
    )
    assert decision.action == action
    if action == Action.SKIP:
        assert decision.reason == PARCEL_UNTOLD_REASON
