"""The admin's "Dead letters" screen through Django's test client, on real dead letters in
the run's vhost: the list with reasons and filters, replay and discard with their
confirmation and record, the needs-review rule, a broker that is down, who may see it."""

import pytest
from django.test import Client

from notifications.models import Notification, OperatorAction
from operations.dead_letters import screen as dead_letter_screen
from operations.dead_letters.batch import DeadLetterFilter
from operations.dead_letters.screen import dead_letter_page
from operations.reviewers import reviewers_group_ensure
from tests.broker import queue_peek
from tests.factories import NotificationFactory, UnpublishedOrderFactory, staff_user
from tests.integration.dead_letter_support import WORK_QUEUE, dead_letter_of, dlq_settles_at

# Transactional: dead-lettering closes the database connection it finds (as a worker does).
# No worker runs, so a replayed message stays in its work queue for the test to read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
LIST = "/admin/dead-letters/"
ACT = "/admin/dead-letters/act/"
SENT_OUT = "The connection to the mail provider broke after the email was handed over"


@pytest.fixture
def letters() -> dict[str, tuple[str, Notification]]:
    """Two dead letters: a refused email (failed) and one that may have gone out (needs review).
    Their orders' events were never published: the work queue stays empty."""
    failed = NotificationFactory.create(
        order=UnpublishedOrderFactory.create(customer_email="f@example.com"), failed=True
    )
    review = NotificationFactory.create(
        order=UnpublishedOrderFactory.create(customer_email="r@example.com"), needs_review=True
    )
    return {
        "failed": (dead_letter_of(failed.order), failed),
        "review": (dead_letter_of(review.order, reason=SENT_OUT, error_class="needs_review"), review),
    }


@pytest.fixture
def reviewer(client):
    reviewers_group_ensure()
    client.force_login(staff_user("rita", reviewer=True))
    return client


def _confirm(client, **data):
    return client.post(ACT, {**data, "confirmed": "on"}, follow=True)


def test_the_list_shows_each_dead_letter_with_its_reason_and_what_a_replay_would_do(reviewer, letters):
    failed_id, failed = letters["failed"]
    review_id, _ = letters["review"]
    page = reviewer.get(LIST)
    html = page.content.decode()
    assert page.status_code == 200
    assert failed_id in html
    assert review_id in html
    assert "Reason: The mail provider refused the email (HTTP 422): mailbox unavailable" in html
    assert f"Reason: {SENT_OUT}" in html
    assert "reopen the failed notification and publish again" in html
    assert "needs review: check at the provider" in html
    assert f'href="/admin/notifications/notification/{failed.pk}/change/"' in html
    assert "orders.confirmations.dlq: 2" in html
    assert "2 message(s) match" in html
    dlq_settles_at(2)  # reading held nothing


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ({"class_name": "needs_review"}, ["review"]),
        ({"reason": "MAILBOX"}, ["failed"]),
        ({"queue": "orders.confirmations", "event_type": "order.created"}, ["failed", "review"]),
        ({"event_type": "order.cancelled"}, []),
        ({"older_than": "1h"}, []),
    ],
)
def test_the_filters(reviewer, letters, query, shown):
    html = reviewer.get(LIST, query).content.decode()
    assert f"{len(shown)} message(s) match" in html
    for name, (event_id, _) in letters.items():
        assert (event_id in html) == (name in shown), name


def test_a_filter_that_is_not_understood_says_so(reviewer, letters):
    page = reviewer.get(LIST, {"older_than": "soon"})
    assert page.status_code == 200
    assert "a duration like 30m, 2h or 1d" in page.content.decode()


def test_pages_of_the_list(letters):
    first = dead_letter_page(DeadLetterFilter(), page=1, per_page=1)
    second = dead_letter_page(DeadLetterFilter(), page=2, per_page=1)
    assert (first.matching, first.pages, second.page) == (2, 2, 2)
    assert {str(first.rows[0].letter.event_id), str(second.rows[0].letter.event_id)} == {
        event_id for event_id, _ in letters.values()
    }
    dlq_settles_at(2)


def test_replay_of_the_selected_asks_first_then_publishes_again_and_is_recorded(reviewer, letters):
    failed_id, failed = letters["failed"]
    # when the reviewer asks
    asked = reviewer.post(ACT, {"verb": "replay", "scope": "selected", "event_id": [failed_id]})
    # then the confirmation names it, and nothing has happened yet
    assert "You are about to <strong>replay</strong> 1 dead letter(s)" in asked.content.decode()
    assert failed_id in asked.content.decode()
    dlq_settles_at(2)
    assert OperatorAction.objects.count() == 0
    # when they confirm
    done = _confirm(reviewer, verb="replay", scope="selected", event_id=[failed_id])
    # then it is back in its work queue, gone from the DLQ, and recorded with who did it
    assert "Replay: 1 replayed." in done.content.decode()
    dlq_settles_at(1)
    [message] = queue_peek(WORK_QUEUE)
    assert message["headers"]["id"] == failed_id
    action = OperatorAction.objects.select_related("actor").get()
    assert action.actor is not None
    assert (action.action, action.actor.username, str(action.event_id)) == ("replay", "rita", failed_id)
    assert action.result.startswith("published again")
    assert action.finished_at
    failed.refresh_from_db()
    assert failed.status == "pending"


def test_replay_leaves_emails_that_may_have_gone_out_unless_the_box_is_ticked(reviewer, letters):
    review_id, review = letters["review"]
    matching = {"verb": "replay", "scope": "matching", "class_name": "needs_review"}
    asked = reviewer.post(ACT, matching).content.decode()
    assert "<strong>1</strong> of them need review" in asked
    assert "Include emails that may have gone out" in asked
    # when confirmed without the box
    refused = _confirm(reviewer, **matching).content.decode()
    assert "Replay: 1 left in the queue." in refused
    assert "1 left in the queue: needs review: check at the provider" in refused
    dlq_settles_at(2)
    assert queue_peek(WORK_QUEUE) == []
    # when confirmed with it
    done = _confirm(reviewer, **matching, include_needs_review="on").content.decode()
    assert "Replay: 1 replayed." in done
    dlq_settles_at(1)
    assert [m["headers"]["id"] for m in queue_peek(WORK_QUEUE)] == [review_id]
    review.refresh_from_db()
    assert review.status == "pending"


def test_discard_needs_a_comment_and_records_it(reviewer, letters):
    everything = {"verb": "discard", "scope": "matching"}
    refused = _confirm(reviewer, **everything).content.decode()
    assert "A discard needs a comment" in refused
    dlq_settles_at(2)
    done = _confirm(reviewer, **everything, comment="test orders of the load test").content.decode()
    assert "Discard: 2 discarded." in done
    dlq_settles_at(0)
    assert queue_peek(WORK_QUEUE) == []
    actions = OperatorAction.objects.filter(action="discard")
    assert {str(a.event_id) for a in actions} == {event_id for event_id, _ in letters.values()}
    assert {(a.actor and a.actor.username, a.comment) for a in actions} == {
        ("rita", "test orders of the load test")
    }


def test_nothing_selected_is_refused_plainly(reviewer, letters):
    page = reviewer.post(ACT, {"verb": "replay", "scope": "selected"}, follow=True)
    assert "Select at least one dead letter" in page.content.decode()
    dlq_settles_at(2)


def test_a_broker_that_is_down_is_said_plainly(reviewer, letters, settings):
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1//"  # nothing listens there
    page = reviewer.get(LIST)
    assert page.status_code == 200
    assert "RabbitMQ cannot be reached" in page.content.decode()
    acted = _confirm(reviewer, verb="discard", scope="matching", comment="x")
    assert acted.status_code == 200
    assert "RabbitMQ cannot be reached" in acted.content.decode()
    assert OperatorAction.objects.count() == 0


def test_only_reviewers_see_it_and_acting_needs_a_post_with_its_csrf_token(client, letters):
    reviewers_group_ensure()
    client.force_login(staff_user("vera", reviewer=False))
    assert client.get(LIST).status_code == 403
    assert client.post(ACT, {"verb": "discard", "scope": "matching", "comment": "x"}).status_code == 403
    assert 'href="/admin/dead-letters/"' not in client.get("/admin/").content.decode()
    client.force_login(staff_user("rita", reviewer=True))
    assert 'href="/admin/dead-letters/"' in client.get("/admin/").content.decode()
    assert client.get(ACT).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff_user("rosa", reviewer=True))
    assert strict.post(ACT, {"verb": "discard", "scope": "matching", "confirmed": "on"}).status_code == 403
    dlq_settles_at(2)
    assert Client().get(LIST).status_code == 302  # to the login page


def test_the_screen_reads_and_acts_in_bounded_steps_and_says_so(reviewer, letters, monkeypatch):
    # given bounds of one message (5000 read and 500 acted on in production)
    monkeypatch.setattr(dead_letter_screen, "SCAN_LIMIT", 1)
    listed = reviewer.get(LIST).content.decode()
    assert "1 message(s) match" in listed
    assert "Looked at the first 1 of the 2 messages only" in listed
    monkeypatch.setattr(dead_letter_screen, "SCAN_LIMIT", 5000)
    monkeypatch.setattr(dead_letter_screen, "ACT_LIMIT", 1)
    everything = {"verb": "discard", "scope": "matching", "comment": "duplicates"}
    asked = reviewer.post(ACT, everything).content.decode()
    assert "You are about to <strong>discard</strong> 1 dead letter(s)" in asked
    assert "That is as many as one click takes" in asked
    # when confirmed twice
    first = _confirm(reviewer, **everything).content.decode()
    assert "Discard: 1 discarded." in first
    assert "Stopped after 1 message(s) of the 2 in the queue(s)" in first
    dlq_settles_at(1)
    _confirm(reviewer, **everything)
    # then each click took one, and all are gone
    dlq_settles_at(0)
    assert OperatorAction.objects.filter(action="discard").count() == 2
