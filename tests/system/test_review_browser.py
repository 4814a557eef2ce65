"""The review screen in a real browser (Playwright driving Debian's Chromium): a reviewer
logs in, filters the failed notifications, retries one and sees it sent, rejects one with a
comment; a user outside the reviewers group gets no actions. (The browser, the screenshots
and logging in: tests/system/browser.py.)
"""

import re

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from notifications.models import Notification, OperatorAction
from operations.reviewers import reviewers_group_ensure
from tests.factories import OrderFactory
from tests.system.browser import admin_login
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def people():
    rita = User.objects.create_user("rita", password="rita-pw", is_staff=True)
    rita.groups.add(reviewers_group_ensure())
    victor = User.objects.create_user("victor", password="victor-pw", is_staff=True)
    victor.user_permissions.add(Permission.objects.get(codename="view_notification"))
    return rita, victor


@pytest.fixture
def failed(mailsim, start_worker) -> list[Notification]:
    """Three confirmations the provider refused (dead-lettered); the provider is fine again."""
    mailsim.set_faults({"kind": "reject"})
    start_worker()
    orders = [
        OrderFactory.create(customer_email=f"{name}@example.com", amount=amount)
        for name, amount in (("ada", "49.90"), ("grace", "12.00"), ("linus", "7.50"))
    ]
    wait_until(
        lambda: Notification.objects.filter(order__in=orders, status="failed").count() == 3,
        timeout=30,
        message="three failed notifications",
    )
    mailsim.set_faults()
    return list(Notification.objects.filter(order__in=orders).select_related("order").order_by("pk"))


def _run_action(page: Page, notification: Notification, action: str, comment: str = "") -> None:
    page.check(f"input[name=_selected_action][value='{notification.pk}']")
    page.select_option("select[name=action]", action)
    if comment:
        page.fill("input[name=comment]", comment)
    page.click("button[name=index]")


def test_a_reviewer_filters_retries_and_rejects_in_the_browser(
    page, live_server, people, failed, screenshots
):
    ada, grace, _ = failed
    admin_login(page, live_server.url, "rita", "rita-pw")
    # filter: what needs a person
    page.click("text=failed or needs review")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#result_list")).to_contain_text(
        "The mail provider refused the email to ada@example.com"
    )
    page.screenshot(path=str(screenshots / "review-list.png"), full_page=True)
    # retry one: it is sent
    _run_action(page, ada, "retry")
    expect(page.locator(".messagelist")).to_contain_text("1 notification(s) done.")
    wait_until(
        lambda: Notification.objects.get(pk=ada.pk).status == "sent", timeout=20, message="retried and sent"
    )
    page.goto(f"{live_server.url}/admin/notifications/notification/?q={ada.order_id}")
    expect(page.locator("#result_list tbody tr")).to_contain_text(re.compile("sent", re.IGNORECASE))
    # reject one with a comment
    page.goto(f"{live_server.url}/admin/notifications/notification/?needs_person=yes")
    _run_action(page, grace, "reject_with_comment", comment="Customer closed the account")
    expect(page.locator(".messagelist")).to_contain_text("1 notification(s) done.")
    assert Notification.objects.get(pk=grace.pk).status == "rejected"
    # the detail page: the order, the attempts, what people did
    page.goto(f"{live_server.url}/admin/notifications/notification/{ada.pk}/change/")
    expect(page.locator("body")).to_contain_text("ada@example.com, 49.90 EUR")
    expect(page.locator("body")).to_contain_text(re.compile("retry", re.IGNORECASE))
    expect(page.locator("body")).to_contain_text(re.compile("accepted", re.IGNORECASE))
    page.screenshot(path=str(screenshots / "review-detail.png"), full_page=True)
    assert OperatorAction.objects.filter(actor__username="rita").count() == 2


def test_a_user_outside_the_reviewers_group_gets_no_actions(page, live_server, people, failed):
    admin_login(page, live_server.url, "victor", "victor-pw")
    expect(page.locator("#result_list tbody tr")).to_have_count(3)
    expect(page.locator("select[name=action]")).to_have_count(0)
    assert not OperatorAction.objects.exists()
