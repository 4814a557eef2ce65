"""How much one action of the admin takes, through Django's test client as a reviewer: the
suppression list's Lift takes one address, and a review action over more notifications than
REVIEW_ACTION_MAX_NOTIFICATIONS (e.g. "select all" over a long list) is refused whole with a
message, never cut short; the drop-down says the cap."""

import pytest

from notifications.models import Notification, OperatorAction, Suppression
from tests.broker import queue_peek
from tests.factories import NotificationFactory, staff_user

# Not transactional: the reviewers group comes from a data migration.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clean_queues")]
NOTIFICATIONS = "/admin/notifications/notification/"
SUPPRESSIONS = "/admin/notifications/suppression/"
# What each action needs in the boxes next to the drop-down to run at all.
ACTIONS = {
    "retry": {},
    "mark_sent": {"comment": "Resend's log: re_123 delivered at 10:02"},
    "send_again_under_new_key": {"comment": "never arrived", "accept_second_email_risk": "on"},
    "reject_with_comment": {"comment": "a test order"},
    "assign_to_me": {},
}


@pytest.fixture
def reviewer(client):
    user = staff_user("rita", reviewer=True, otherwise_may_view="view_suppression")
    client.force_login(user)
    return user


@pytest.fixture
def four_needing_review(django_capture_on_commit_callbacks) -> list[Notification]:
    with django_capture_on_commit_callbacks(execute=False):  # no broker needed to set them up
        addresses = [f"r{n}@example.com" for n in range(4)]
        return [NotificationFactory.create(order__customer_email=to, needs_review=True) for to in addresses]


def _select_all(client, action: str, notifications: list[Notification], **boxes: str):
    """The admin's "select all N" over the list: the action gets every row the list shows."""
    data = {"action": action, "select_across": "1", "_selected_action": [notifications[0].pk], "index": 0}
    return client.post(NOTIFICATIONS, {**data, **boxes}, follow=True)


@pytest.mark.parametrize("action", ACTIONS)
def test_a_review_action_over_more_than_the_cap_is_refused_whole(
    client, reviewer, four_needing_review, settings, action
):
    settings.REVIEW_ACTION_MAX_NOTIFICATIONS = 3
    before = list(Notification.objects.order_by("pk").values_list("status", "owner", "idempotency_key"))
    # when
    response = _select_all(client, action, four_needing_review, **ACTIONS[action])
    # then
    page = response.content.decode()
    assert "Nothing done: 4 notifications are selected, and an action takes at most 3 at a time" in page
    assert "notification(s) done" not in page
    after = list(Notification.objects.order_by("pk").values_list("status", "owner", "idempotency_key"))
    assert after == before
    assert not OperatorAction.objects.exists()
    assert queue_peek("orders.confirmations") == []


def test_a_selection_at_the_cap_is_done(client, reviewer, four_needing_review, settings):
    settings.REVIEW_ACTION_MAX_NOTIFICATIONS = 4
    response = _select_all(client, "assign_to_me", four_needing_review)
    assert "4 notification(s) done." in response.content.decode()
    assert Notification.objects.filter(owner=reviewer).count() == 4


def test_the_drop_down_says_the_cap(client, reviewer, four_needing_review, settings):
    page = client.get(NOTIFICATIONS).content.decode()
    assert "Retry (check the order, send again with the same key; at most 100 at a time)" in page
    assert "Mark as sent (I checked at the provider, evidence in the comment; at most 100 at a time)" in page
    settings.REVIEW_ACTION_MAX_NOTIFICATIONS = 25
    page = client.get(NOTIFICATIONS).content.decode()
    assert "Send again under a new key (may reach the customer twice; at most 25 at a time)" in page
    Suppression.objects.create(address="gone@example.com", reason="bounced")  # no list, no actions
    assert "Lift (one address at a time" in client.get(SUPPRESSIONS).content.decode()


def test_lift_refuses_a_selection_of_more_than_one_address(client, reviewer):
    rows = [
        Suppression.objects.create(address=f"gone{n}@example.com", reason="bounced", detail="no mailbox")
        for n in range(2)
    ]
    data = {"action": "lift", "_selected_action": [row.pk for row in rows], "index": 0, "comment": "fixed"}
    # when
    response = client.post(SUPPRESSIONS, data, follow=True)
    # then
    page = response.content.decode()
    assert "Nothing lifted: 2 addresses are selected. Lift one address at a time" in page
    assert Suppression.objects.filter(lifted_at__isnull=True).count() == 2
    assert not OperatorAction.objects.exists()
