"""The admin review screen through Django's test client: filters, actions, permissions,
the record of every action. (tests/system/test_review_browser.py does it in a real browser.)"""

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.models import AddressCorrection, Notification, OperatorAction, RetiredKey
from orders.models import Order
from tests.broker import queue_peek
from tests.factories import DeliveryAttemptFactory, NotificationFactory, staff_user

# Not transactional: the reviewers group comes from a data migration, which the flush after
# a transactional test would remove.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clean_queues")]
CHANGELIST = "/admin/notifications/notification/"


@pytest.fixture
def failed_notifications(django_capture_on_commit_callbacks) -> list[Notification]:
    with django_capture_on_commit_callbacks(execute=False):  # no broker needed to set them up
        return [
            NotificationFactory.create(
                order__customer_email=f"f{n}@example.com", order__amount="5.00", failed=True
            )
            for n in range(3)
        ]


def _act(client, action: str, notifications, **extra):
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [n.pk for n in notifications], "index": 0, **extra},
        follow=True,
    )


def test_the_review_list_shows_the_plain_reason_and_filters_what_needs_a_person(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    Notification.objects.filter(pk=failed_notifications[0].pk).update(status="sent", last_error="")
    page = client.get(CHANGELIST, {"needs_person": "yes", "age": "hour", "kind": "order_confirmation"})
    assert page.status_code == 200
    assert page.context["cl"].result_count == 2
    assert "The mail provider refused the email" in page.content.decode()
    assert client.get(CHANGELIST, {"age": "older"}).context["cl"].result_count == 0


def test_retry_reopens_and_publishes_the_same_event_again_and_is_recorded(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    target = failed_notifications[0]
    response = _act(client, "retry", [target])
    assert "1 notification(s) done." in response.content.decode()
    target.refresh_from_db()
    assert target.status == "pending"
    assert "Retried by rita" in target.last_error
    [message] = queue_peek("orders.confirmations")
    action = OperatorAction.objects.get(action="retry")
    assert message["headers"]["id"] == str(action.event_id)
    assert action.actor is not None
    assert (action.actor.username, action.notification_id, action.finished_at is not None) == (
        "rita",
        target.pk,
        True,
    )


def test_reject_needs_a_comment_and_records_it(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    target = failed_notifications[1]
    refused = _act(client, "reject_with_comment", [target], comment="")
    assert "A rejection needs a comment" in refused.content.decode()
    _act(client, "reject_with_comment", [target], comment="Customer asked us not to write")
    target.refresh_from_db()
    assert (target.status, target.reviewer_comment) == ("rejected", "Customer asked us not to write")
    assert OperatorAction.objects.filter(action="reject", comment="Customer asked us not to write").exists()


def test_assign_to_me_sets_the_owner(client, failed_notifications):
    rita = staff_user("rita", reviewer=True)
    client.force_login(rita)
    _act(client, "assign_to_me", failed_notifications[:2])
    assert Notification.objects.filter(owner=rita).count() == 2


def test_a_user_outside_the_reviewers_group_sees_the_list_but_cannot_act(client, failed_notifications):
    client.force_login(staff_user("victor", reviewer=False))
    page = client.get(CHANGELIST)
    assert page.status_code == 200
    assert page.context["cl"].result_count == 3
    assert "Retry" not in page.content.decode()
    _act(client, "retry", failed_notifications[:1])
    assert Notification.objects.get(pk=failed_notifications[0].pk).status == "failed"
    assert not OperatorAction.objects.exists()


def test_a_sent_notification_cannot_be_retried(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    Notification.objects.filter(pk=failed_notifications[0].pk).update(
        status="sent", status_changed_at=timezone.now()
    )
    response = _act(client, "retry", failed_notifications[:1])
    assert "only failed or review cases are retried" in response.content.decode()
    assert queue_peek("orders.confirmations") == []


def test_the_detail_page_shows_the_order_and_the_history(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    target = failed_notifications[0]
    DeliveryAttemptFactory.create(
        notification=target,
        worker="worker@host pid 7",
        outcome="permanent",
        http_status=422,
        error="HTTP 422; validation_error; The recipient address was rejected",
    )
    _act(client, "assign_to_me", [target])
    page = client.get(f"{CHANGELIST}{target.pk}/change/").content.decode()
    assert "f0@example.com, 5.00 EUR" in page
    assert "The recipient address was rejected" in page
    assert "worker@host pid 7" in page
    assert "assigned to rita" in page


@pytest.mark.parametrize(
    "page", ["/admin/", CHANGELIST, "/admin/auth/user/", "/admin/dashboard/", "/admin/dead-letters/"]
)
def test_an_anonymous_visitor_is_sent_to_the_admin_login(client, page):
    response = client.get(page)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.parametrize("page", ["/admin/", CHANGELIST, "/admin/dashboard/", "/admin/dead-letters/"])
def test_a_logged_in_user_who_is_not_staff_is_refused_by_the_admin(client, failed_notifications, page):
    # given a user with every review permission, but no staff flag
    user = User.objects.create_user("nina", password="pw", is_staff=False)
    user.groups.add(Group.objects.get(name="Notification reviewers"))
    client.force_login(user)
    # then the admin sends them to its login page, where they are told they may not enter
    response = client.get(page, follow=True)
    assert response.redirect_chain[0][0].startswith("/admin/login/")
    assert "not authorized to access this page" in response.content.decode()


def test_a_user_who_is_not_staff_cannot_run_a_review_action(client, failed_notifications):
    user = User.objects.create_user("nina", password="pw", is_staff=False)
    user.groups.add(Group.objects.get(name="Notification reviewers"))
    client.force_login(user)
    _act(client, "retry", failed_notifications[:1])
    assert Notification.objects.get(pk=failed_notifications[0].pk).status == "failed"
    assert not OperatorAction.objects.exists()
    assert queue_peek("orders.confirmations") == []


FORGED_EXTRA = {
    "comment": "forged evidence text",
    "accept_second_email_risk": "on",
    "new_address": "x@example.com",
}


@pytest.mark.parametrize(
    ("action", "extra"),
    [
        ("retry", {}),
        ("reject_with_comment", {"comment": "forged"}),
        ("assign_to_me", {}),
        ("mark_sent", FORGED_EXTRA),
        ("send_again_under_new_key", FORGED_EXTRA),
        ("correct_address_and_send", FORGED_EXTRA),
    ],
)
def test_a_forged_action_post_by_staff_outside_the_reviewers_group_is_refused_and_changes_nothing(
    client, failed_notifications, action, extra
):
    # given a staff user who may view notifications but is not a reviewer
    client.force_login(staff_user("victor", reviewer=False))
    before = list(Notification.objects.order_by("pk").values())
    # when they post the action by hand (the page never offered it to them)
    response = _act(client, action, failed_notifications, **extra)
    # then the admin has no such action for them: it shows the list, and nothing changed anywhere
    assert response.status_code == 200
    assert "notification(s) done" not in response.content.decode()
    assert list(Notification.objects.order_by("pk").values()) == before
    assert not OperatorAction.objects.exists()
    assert queue_peek("orders.confirmations") == []
    assert not Order.objects.filter(customer_email="x@example.com").exists()


@pytest.mark.parametrize(
    ("action", "extra"),
    [("retry", {}), ("reject_with_comment", {"comment": "checked with the customer"}), ("assign_to_me", {})],
)
def test_the_same_post_by_a_reviewer_does_act(client, failed_notifications, action, extra):
    # The counterpart of the forged post: the refusal above comes from the group, not the form.
    client.force_login(staff_user("rita", reviewer=True))
    before = list(Notification.objects.order_by("pk").values())
    _act(client, action, failed_notifications[:1], **extra)
    assert list(Notification.objects.order_by("pk").values()) != before
    assert OperatorAction.objects.filter(notification=failed_notifications[0]).exists()


def test_mark_sent_needs_the_evidence_and_records_it(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    target = failed_notifications[0]
    refused = _act(client, "mark_sent", [target], comment="")
    assert "needs the evidence you checked" in refused.content.decode()
    _act(client, "mark_sent", [target], comment="Resend dashboard: delivered at 10:02, id re_77")
    target.refresh_from_db()
    assert (target.status, target.reviewer_comment) == (
        "sent",
        "Resend dashboard: delivered at 10:02, id re_77",
    )
    action = OperatorAction.objects.get(action="mark_sent")
    assert action.actor is not None
    assert (action.actor.username, action.comment) == (
        "rita",
        "Resend dashboard: delivered at 10:02, id re_77",
    )


def test_send_again_under_a_new_key_asks_the_reviewer_to_accept_a_possible_second_email(
    client, failed_notifications
):
    client.force_login(staff_user("rita", reviewer=True))
    target = failed_notifications[0]
    old_key = target.idempotency_key
    refused = _act(client, "send_again_under_new_key", [target], comment="nothing arrived")
    assert "the customer may get this email twice" in refused.content.decode()
    assert Notification.objects.get(pk=target.pk).status == "failed"
    # when
    done = _act(
        client, "send_again_under_new_key", [target], comment="nothing arrived", accept_second_email_risk="on"
    )
    # then
    assert "1 notification(s) done." in done.content.decode()
    target.refresh_from_db()
    assert (target.status, target.key_version) == ("pending", 2)
    assert target.idempotency_key != old_key
    assert RetiredKey.objects.get(notification=target).key == old_key
    action = OperatorAction.objects.get(action="resend_new_key")
    assert action.event_id is not None
    assert OutboxEvent.objects.get(pk=action.event_id).aggregate_id == str(target.order_id)


def test_correct_address_takes_one_email_and_records_the_change(client, failed_notifications):
    client.force_login(staff_user("rita", reviewer=True))
    two = _act(client, "correct_address_and_send", failed_notifications[:2], new_address="n@example.com")
    assert "Select exactly one email" in two.content.decode()
    target = failed_notifications[0]
    _act(client, "correct_address_and_send", [target], new_address="n@example.com", comment="typo per phone")
    target.refresh_from_db()
    assert target.status == "pending"
    assert target.order.customer_email == "n@example.com"
    correction = AddressCorrection.objects.get(order=target.order)
    assert correction.action.actor is not None
    assert (correction.previous_address, correction.action.actor.username) == ("f0@example.com", "rita")
