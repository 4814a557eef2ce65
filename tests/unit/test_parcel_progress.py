"""What a parcel's news does (orders/parcel_progress.py, `progress_decide`) and when its email
goes (notifications/delivery/rules.py), decided on plain values, without a database; "in
transit" with settings PARCEL_IN_TRANSIT_EMAIL off (the default) and on."""

from datetime import UTC, datetime, timedelta

import pytest

from notifications.delivery.email_order import emails_followed
from notifications.delivery.rules import (
    DELIVERED_SINCE_REASON,
    LATER_STEP_SINCE_REASON,
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
    LATER_STEP_TOLD_NOTE,
    OLDER_NOTE,
    SHOWN_ONLY_NOTE,
    ProgressDecision,
    happened_at_problem,
    progress_decide,
)

T = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)
NEWS_KINDS = ("parcel_in_transit", "parcel_out_for_delivery", "parcel_delivered", "parcel_delivery_failed")


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
    # (PARCEL_IN_TRANSIT_EMAIL on changes only what "in transit" does: the cases below)
    for in_transit_email in (False, True) if status != "in_transit" else (False,):
        assert (
            progress_decide(
                current=current,
                current_at=current_at,
                status=status,
                happened_at=happened_at,
                emailed=frozenset(emailed),
                in_transit_email=in_transit_email,
            )
            == decision
        )


@pytest.mark.parametrize(
    ("current", "current_at", "happened_at", "emailed", "decision"),
    [
        # the first in transit: its email
        ("shipped", None, T, set(), ProgressDecision(True, "parcel.in_transit", "")),
        # in transit again (another depot): told once
        (
            "in_transit",
            T,
            T + timedelta(hours=5),
            {"parcel.in_transit"},
            ProgressDecision(True, "", ALREADY_TOLD_NOTE),
        ),
        # late, or after delivered: as any news
        ("in_transit", T, T - timedelta(hours=1), set(), ProgressDecision(False, "", OLDER_NOTE)),
        ("delivered", T, T + timedelta(hours=1), set(), ProgressDecision(False, "", AFTER_DELIVERY_NOTE)),
        # back in transit after a failed attempt: the parcel's status, but the customer was
        # told of a later step, and "on its way" would read as a step back
        (
            "attempted_delivery",
            T,
            T + timedelta(hours=2),
            {"parcel.out_for_delivery", "parcel.delivery_failed"},
            ProgressDecision(True, "", LATER_STEP_TOLD_NOTE),
        ),
        # out for delivery, back at the depot, in transit again: still a step back
        (
            "in_transit",
            T,
            T + timedelta(hours=2),
            {"parcel.out_for_delivery"},
            ProgressDecision(True, "", LATER_STEP_TOLD_NOTE),
        ),
    ],
)
def test_in_transit_is_an_email_once_before_any_later_step_when_the_setting_is_on(
    current, current_at, happened_at, emailed, decision
):
    on = progress_decide(
        current=current,
        current_at=current_at,
        status="in_transit",
        happened_at=happened_at,
        emailed=frozenset(emailed),
        in_transit_email=True,
    )
    off = progress_decide(
        current=current,
        current_at=current_at,
        status="in_transit",
        happened_at=happened_at,
        emailed=frozenset(emailed),
        in_transit_email=False,
    )
    assert on == decision
    # off, the same news never records an email, whatever it does to the status
    assert (off.becomes_status, off.event_type) == (on.becomes_status, "")


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
        ("parcel_in_transit", "delivered", Decision(Action.SKIP, DELIVERED_SINCE_REASON)),
        ("parcel_delivered", "delivered", None),
        # back in transit before its turn: still told (the next setting out records no email)
        ("parcel_out_for_delivery", "in_transit", None),
        ("parcel_delivery_failed", "out_for_delivery", None),
        ("parcel_in_transit", "in_transit", None),
        # (in transit, then out for delivery, then in transit again: that one is not "delivered")
        ("parcel_in_transit", "out_for_delivery", None),
    ],
)
def test_only_delivery_ends_a_news_email_before_its_turn(kind, progress, decision):
    assert parcel_news_decide(kind, progress=progress, later_step_told=False) == decision


@pytest.mark.parametrize("progress", ["in_transit", "out_for_delivery", "attempted_delivery", "failure"])
def test_in_transit_is_old_news_once_a_later_step_recorded_its_email(progress):
    # the broker keeps no order between the two emails: "in transit" would be read after
    # "out for delivery"
    assert parcel_news_decide("parcel_in_transit", progress=progress, later_step_told=True) == Decision(
        Action.SKIP, LATER_STEP_SINCE_REASON
    )
    # a later step's own email is not held back by another later step
    assert parcel_news_decide("parcel_out_for_delivery", progress=progress, later_step_told=True) is None


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
