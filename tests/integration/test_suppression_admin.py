"""The suppression list in the admin: reviewers see it and lift an address with a comment,
audited; staff outside the reviewers group cannot; a lifted address receives email again."""

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.models import Notification, OperatorAction, Suppression
from tests.factories import OrderFactory, staff_user

# Not transactional: the reviewers group comes from a data migration.
pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/notifications/suppression/"


@pytest.fixture
def suppression() -> Suppression:
    return Suppression.objects.create(
        address="gone@example.com", reason="bounced", detail="mailbox does not exist"
    )


def _lift(client, suppression: Suppression, comment: str):
    data = {"action": "lift", "_selected_action": [suppression.pk], "index": 0, "comment": comment}
    return client.post(CHANGELIST, data, follow=True)


def test_a_reviewer_sees_the_list_and_lifts_an_address_with_a_comment_audited(client, suppression):
    client.force_login(staff_user("rita", reviewer=True, otherwise_may_view="view_suppression"))
    page = client.get(CHANGELIST)
    assert "gone@example.com" in page.content.decode()
    # when
    response = _lift(client, suppression, "The customer fixed their mailbox (ticket 812).")
    # then
    assert "1 suppression(s) lifted." in response.content.decode()
    suppression.refresh_from_db()
    assert suppression.lifted_at is not None
    assert suppression.lifted_by.username == "rita"
    [audit] = OperatorAction.objects.all()
    assert (audit.action, audit.actor_name, audit.comment) == (
        "lift_suppression",
        "rita",
        "The customer fixed their mailbox (ticket 812).",
    )


def test_lifting_without_a_comment_is_refused_and_changes_nothing(client, suppression):
    client.force_login(staff_user("rita", reviewer=True, otherwise_may_view="view_suppression"))
    response = _lift(client, suppression, "  ")
    assert "Write in the comment why" in response.content.decode()
    suppression.refresh_from_db()
    assert suppression.lifted_at is None
    assert not OperatorAction.objects.exists()


def test_staff_outside_the_reviewers_group_cannot_lift(client, suppression):
    client.force_login(staff_user("sam", reviewer=False, otherwise_may_view="view_suppression"))
    _lift(client, suppression, "forged")
    suppression.refresh_from_db()
    assert suppression.lifted_at is None
    assert not OperatorAction.objects.exists()


def test_a_lifted_address_receives_email_again(
    client, suppression, mailsim, django_capture_on_commit_callbacks
):
    client.force_login(staff_user("rita", reviewer=True, otherwise_may_view="view_suppression"))
    _lift(client, suppression, "works again")
    with django_capture_on_commit_callbacks(execute=False):
        order = OrderFactory.create(customer_email="gone@example.com")
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    result = event_dispatch(raw_envelope=envelope, delivery=Delivery(worker="w", retries=0, max_retries=8))
    assert result == "sent"
    assert Notification.objects.get(order=order).status == "sent"
