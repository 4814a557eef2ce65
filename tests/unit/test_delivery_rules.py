"""Which email an order gets, and in what order (notifications/delivery/rules.py), decided on
plain values: the order's state, then the status of each email that goes before this one.
The tables here are docs/email-content.md's, "The emails of an order, in the order a customer
reads them". (tests/integration/test_email_order.py and test_cancellation_flow.py: the same
rules read from the database by a real claim, with every delivery order.)"""

from datetime import UTC, datetime

import pytest

from notifications.delivery.email_order import emails_followed
from notifications.delivery.rules import (
    CANCELLED_FIRST_REASON,
    CONFIRMATION_SENDING_REASON,
    ORDER_ERASED_REASON,
    SEND,
    Action,
    Decision,
    EarlierEmail,
    earlier_emails_decide,
    notification_decide,
    order_state_decide,
)
from notifications.models import Notification, Suppression
from orders.models import Order

KINDS = list(Notification.Kind)
CONFIRMATION, CANCELLATION, SHIPMENT, REFUND = (
    Notification.Kind.ORDER_CONFIRMATION,
    Notification.Kind.ORDER_CANCELLATION,
    Notification.Kind.ORDER_SHIPMENT,
    Notification.Kind.ORDER_REFUND,
)
SUPPRESSED = "The address bounced on 2026-03-01. It is on the suppression list; a reviewer can lift it."
NOT_SENT_YET = "It follows the order confirmation, which is not sent yet."


def _waits_for_a_person(named: str, status: str) -> str:
    return f"It follows {named}, which is {status} and waits for a person: retry or reject that one first."


# -- the order's own state


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cancelled", [False, True])
def test_an_erased_order_gets_no_email_of_any_kind_suppressed_or_not(kind, cancelled):
    for suppressed in ("", SUPPRESSED):
        decision = order_state_decide(kind, erased=True, suppressed=suppressed, cancelled=cancelled)
        assert decision == Decision(Action.SKIP, ORDER_ERASED_REASON)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cancelled", [False, True])
def test_a_suppressed_address_gets_no_email_of_any_kind_and_is_told_why(kind, cancelled):
    decision = order_state_decide(kind, erased=False, suppressed=SUPPRESSED, cancelled=cancelled)
    assert decision == Decision(Action.SKIP, SUPPRESSED)


@pytest.mark.parametrize(
    ("kind", "cancelled", "decision"),
    [
        (CONFIRMATION, False, SEND),
        (CONFIRMATION, True, Decision(Action.SKIP, CANCELLED_FIRST_REASON)),
        (CANCELLATION, False, Decision(Action.SKIP, "The order is not cancelled.")),
        (CANCELLATION, True, None),  # the confirmation being sent decides
        (SHIPMENT, False, None),
        (SHIPMENT, True, None),
        (REFUND, False, None),
        (REFUND, True, None),
    ],
)
def test_the_order_state_decides_the_confirmation_and_leaves_the_others_to_the_earlier_emails(
    kind, cancelled, decision
):
    assert order_state_decide(kind, erased=False, suppressed="", cancelled=cancelled) == decision


def test_a_kind_without_a_rule_is_an_error_unless_the_order_or_address_takes_no_email():
    with pytest.raises(ValueError, match="no rule for notification kind 'order_reminder'"):
        order_state_decide("order_reminder", erased=False, suppressed="", cancelled=False)
    # the gates come first: an erased order or a suppressed address takes nothing, of any kind
    assert order_state_decide("order_reminder", erased=True, suppressed="", cancelled=False) == (
        Decision(Action.SKIP, ORDER_ERASED_REASON)
    )
    assert order_state_decide("order_reminder", erased=False, suppressed=SUPPRESSED, cancelled=False) == (
        Decision(Action.SKIP, SUPPRESSED)
    )


# -- which email follows which


@pytest.mark.parametrize(
    ("kind", "cancelled", "answers_parcel", "followed"),
    [
        *((CONFIRMATION, cancelled, parcel, ()) for cancelled in (False, True) for parcel in (False, True)),
        *(
            (kind, cancelled, parcel, (EarlierEmail.CONFIRMATION,))
            for kind in (CANCELLATION, SHIPMENT)
            for cancelled in (False, True)
            for parcel in (False, True)
        ),
        (REFUND, False, False, (EarlierEmail.CONFIRMATION,)),
        (REFUND, True, False, (EarlierEmail.CONFIRMATION, EarlierEmail.CANCELLATION)),
        (REFUND, False, True, (EarlierEmail.CONFIRMATION, EarlierEmail.PARCEL)),
        (
            REFUND,
            True,
            True,
            (EarlierEmail.CONFIRMATION, EarlierEmail.CANCELLATION, EarlierEmail.PARCEL),
        ),
    ],
)
def test_which_emails_of_the_order_go_before_each_kind(kind, cancelled, answers_parcel, followed):
    assert emails_followed(kind, cancelled=cancelled, answers_parcel=answers_parcel) == followed


def test_every_kind_of_email_has_its_place_in_the_order():
    # a new kind without a row would raise at its first claim, not here
    for kind in KINDS:
        emails_followed(kind, cancelled=False, answers_parcel=False)
    assert [str(earlier) for earlier in EarlierEmail] == [
        "the order confirmation",
        "the cancellation",
        'the parcel\'s "shipped" email',
        "the email of the change before it",
    ]


# -- what an email does in each state of the one it follows (docs/email-content.md's table)

# Every status of the earlier email; None: it is not recorded (an order from before it was).
STATUSES = ["pending", "sending", "sent", "skipped", "failed", "needs_review", "rejected", None]
WAITS = Decision(Action.WAIT, NOT_SENT_YET, retry_after=5)


def _with_a_person(shown_as: str) -> Decision:
    return Decision(Action.WAIT, _waits_for_a_person("the order confirmation", shown_as), retry_after=300)


CANCELLATION_AFTER = [  # (the confirmation's status, the cancellation's decision)
    ("pending", SEND),  # the confirmation will be skipped: the order is cancelled
    ("sending", Decision(Action.WAIT, CONFIRMATION_SENDING_REASON, retry_after=0)),
    ("sent", SEND),
    ("skipped", SEND),  # the customer hears of the order once, cancelled
    ("failed", SEND),  # the cancellation is news either way
    ("needs_review", SEND),
    ("rejected", SEND),
    (None, SEND),
]
SHIPMENT_AFTER = [  # (the confirmation's status, whether the order is cancelled, the decision)
    ("pending", False, WAITS),
    ("sending", False, WAITS),
    ("sent", False, SEND),
    ("skipped", False, SEND),  # skipped for its address, or never recorded as sent: no parcel held
    ("failed", False, _with_a_person("failed")),
    ("needs_review", False, _with_a_person("needs review")),
    ("rejected", False, SEND),  # the reviewer decided about that email, not the parcel
    (None, False, SEND),
    # the order was cancelled after the parcel was announced
    ("pending", True, WAITS),  # its confirmation will be skipped, and then so will this
    ("sending", True, WAITS),
    ("sent", True, SEND),  # the customer heard of the order: the parcel is news
    ("skipped", True, Decision(Action.SKIP, CANCELLED_FIRST_REASON)),  # they never heard of it
    ("failed", True, _with_a_person("failed")),
    ("needs_review", True, _with_a_person("needs review")),
    ("rejected", True, SEND),
    (None, True, SEND),
]


def test_the_tables_have_a_row_for_every_status_of_the_earlier_email():
    assert set(STATUSES) == {*Notification.Status.values, None}  # a new status needs its rows
    assert [row[0] for row in CANCELLATION_AFTER] == STATUSES
    assert [row[:2] for row in SHIPMENT_AFTER] == [
        (status, cancelled) for cancelled in (False, True) for status in STATUSES
    ]


@pytest.mark.parametrize(("confirmation", "decision"), CANCELLATION_AFTER)
def test_a_cancellation_waits_only_while_the_confirmation_is_being_sent(confirmation, decision):
    earlier = {EarlierEmail.CONFIRMATION: confirmation}
    assert earlier_emails_decide(CANCELLATION, cancelled=True, earlier=earlier) == decision


@pytest.mark.parametrize(("confirmation", "cancelled", "decision"), SHIPMENT_AFTER)
def test_a_shipment_follows_the_confirmations_fate(confirmation, cancelled, decision):
    earlier = {EarlierEmail.CONFIRMATION: confirmation}
    assert earlier_emails_decide(SHIPMENT, cancelled=cancelled, earlier=earlier) == decision


@pytest.mark.parametrize(
    ("earlier", "decision"),
    [
        ({EarlierEmail.CONFIRMATION: "sent"}, SEND),
        ({EarlierEmail.CONFIRMATION: "pending"}, WAITS),
        ({EarlierEmail.CONFIRMATION: "needs_review"}, _with_a_person("needs review")),
        # a cancelled order: the refund follows the cancellation too
        ({EarlierEmail.CONFIRMATION: "sent", EarlierEmail.CANCELLATION: "sent"}, SEND),
        ({EarlierEmail.CONFIRMATION: "skipped", EarlierEmail.CANCELLATION: "sent"}, SEND),
        (
            {EarlierEmail.CONFIRMATION: "sent", EarlierEmail.CANCELLATION: "sending"},
            Decision(Action.WAIT, "It follows the cancellation, which is not sent yet.", retry_after=5),
        ),
        (
            {EarlierEmail.CONFIRMATION: "rejected", EarlierEmail.CANCELLATION: "failed"},
            Decision(Action.WAIT, _waits_for_a_person("the cancellation", "failed"), retry_after=300),
        ),
        # a return: the refund follows the email of the parcel it answers
        ({EarlierEmail.CONFIRMATION: "sent", EarlierEmail.PARCEL: "sent"}, SEND),
        ({EarlierEmail.CONFIRMATION: "sent", EarlierEmail.PARCEL: "skipped"}, SEND),
        (
            {EarlierEmail.CONFIRMATION: "sent", EarlierEmail.PARCEL: "pending"},
            Decision(
                Action.WAIT,
                'It follows the parcel\'s "shipped" email, which is not sent yet.',
                retry_after=5,
            ),
        ),
        (
            {EarlierEmail.CONFIRMATION: "sent", EarlierEmail.PARCEL: "needs_review"},
            Decision(
                Action.WAIT,
                _waits_for_a_person('the parcel\'s "shipped" email', "needs review"),
                retry_after=300,
            ),
        ),
        # the first that is not done is named, the confirmation before the others, whatever
        # order they were read in
        (
            {
                EarlierEmail.PARCEL: "pending",
                EarlierEmail.CANCELLATION: "pending",
                EarlierEmail.CONFIRMATION: "failed",
            },
            Decision(Action.WAIT, _waits_for_a_person("the order confirmation", "failed"), retry_after=300),
        ),
        (
            {
                EarlierEmail.PARCEL: "failed",
                EarlierEmail.CANCELLATION: "pending",
                EarlierEmail.CONFIRMATION: "sent",
            },
            Decision(Action.WAIT, "It follows the cancellation, which is not sent yet.", retry_after=5),
        ),
        # an email not recorded (an order from before it was recorded) holds nothing up
        ({EarlierEmail.CONFIRMATION: None, EarlierEmail.CANCELLATION: None, EarlierEmail.PARCEL: None}, SEND),
        ({}, SEND),
    ],
)
def test_a_refund_goes_once_every_email_before_it_is_done_and_names_the_first_that_is_not(earlier, decision):
    cancelled = EarlierEmail.CANCELLATION in earlier
    assert earlier_emails_decide(REFUND, cancelled=cancelled, earlier=earlier) == decision


def test_a_refund_of_a_cancelled_order_whose_confirmation_was_skipped_is_not_skipped_with_it():
    # unlike a parcel's email: the money is news to the customer, told after the cancellation
    earlier = {EarlierEmail.CONFIRMATION: "skipped", EarlierEmail.CANCELLATION: "skipped"}
    assert earlier_emails_decide(REFUND, cancelled=True, earlier=earlier) == SEND


def test_how_long_a_following_email_waits_is_set_by_the_settings(settings):
    settings.EMAIL_FOLLOWING_WAIT_SECONDS, settings.EMAIL_FOLLOWING_PERSON_WAIT_SECONDS = 7, 600
    for kind in (SHIPMENT, REFUND):
        on_its_way = earlier_emails_decide(
            kind, cancelled=False, earlier={EarlierEmail.CONFIRMATION: "sending"}
        )
        with_a_person = earlier_emails_decide(
            kind, cancelled=False, earlier={EarlierEmail.CONFIRMATION: "failed"}
        )
        assert (on_its_way.retry_after, with_a_person.retry_after) == (7, 600)
    # a cancellation behind a confirmation being sent looks again at once: the send is short
    sending = earlier_emails_decide(
        CANCELLATION, cancelled=True, earlier={EarlierEmail.CONFIRMATION: "sending"}
    )
    assert sending.retry_after == 0


# -- the order's state read off the model, without a database


def _order(*, cancelled: bool = False, erased: bool = False) -> Order:
    return Order(
        status=Order.Status.CANCELLED if cancelled else Order.Status.CREATED,
        erased_at=datetime(2026, 3, 2, tzinfo=UTC) if erased else None,
    )


def test_what_the_order_decides_alone_reads_no_earlier_email():
    # unsaved rows: a read of the database would fail here (tests/unit takes none)
    confirmation, cancellation = Notification(kind=CONFIRMATION), Notification(kind=CANCELLATION)
    assert notification_decide(notification=confirmation, order=_order()) == SEND
    assert notification_decide(notification=confirmation, order=_order(cancelled=True)) == Decision(
        Action.SKIP, CANCELLED_FIRST_REASON
    )
    assert (
        notification_decide(notification=cancellation, order=_order()).reason == "The order is not cancelled."
    )
    for kind in KINDS:
        erased = notification_decide(notification=Notification(kind=kind), order=_order(erased=True))
        assert erased == Decision(Action.SKIP, ORDER_ERASED_REASON)


def test_a_suppression_is_named_in_the_skipped_emails_reason():
    suppression = Suppression(
        reason=Suppression.Reason.COMPLAINED,
        detail="abuse report",
        created_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    )
    for kind in KINDS:
        decision = notification_decide(
            notification=Notification(kind=kind), order=_order(cancelled=True), suppression=suppression
        )
        assert decision == Decision(
            Action.SKIP,
            "The address was reported as spam by its owner on 2026-03-01: abuse report. It is on the "
            "suppression list; a reviewer can lift it.",
        )
