"""The hourly retention job deletes the admin's expired sessions (what `manage.py clearsessions`
does), where a reviewer's remembered search for a customer's address is kept, and leaves the
sessions still in use; its counts say how many it deleted."""

from datetime import timedelta
from urllib.parse import parse_qs

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from messaging.models import RetentionRun
from messaging.retention import retention_run
from operations.session_retention import expired_sessions_delete
from tests.factories import staff_user

pytestmark = pytest.mark.django_db

SEARCH = "ada@example.com"


def _reviewer_session(username: str) -> str:
    """The key of a reviewer's session in which the notifications list remembers a search
    for a customer's address."""
    client = Client()
    client.force_login(staff_user(username, reviewer=True))
    assert client.get("/admin/notifications/notification/", {"q": SEARCH}).status_code == 200
    key = client.session.session_key
    assert key is not None
    remembered = Session.objects.get(pk=key).get_decoded()["admin-filters:notifications.notification"]
    assert parse_qs(remembered) == {"q": [SEARCH]}
    return key


def test_the_job_deletes_an_expired_session_and_keeps_a_live_one():
    expired, live = _reviewer_session("olga"), _reviewer_session("piet")
    Session.objects.filter(pk=expired).update(expire_date=timezone.now() - timedelta(seconds=1))
    # when
    report = retention_run()
    # then
    assert list(Session.objects.values_list("pk", flat=True)) == [live]
    assert report.steps_deleted["expired_sessions"] == 1
    assert RetentionRun.objects.get().removed["expired_sessions_deleted"] == 1


def test_expired_sessions_go_in_batches():
    keys = [_reviewer_session(f"reviewer-{n}") for n in range(5)]
    Session.objects.filter(pk__in=keys).update(expire_date=timezone.now() - timedelta(days=1))
    # when: batches of two, and enough of them
    deleted = expired_sessions_delete(now=timezone.now(), batch_size=2, max_batches=10)
    # then
    assert (deleted, Session.objects.count()) == (5, 0)


def test_an_engine_without_a_table_clears_its_own_way_and_counts_nothing(settings):
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
    assert expired_sessions_delete(now=timezone.now(), batch_size=2, max_batches=10) == 0
