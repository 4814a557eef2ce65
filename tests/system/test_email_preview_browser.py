"""The email on the notification page in a real browser: a reviewer opens a notification whose
first attempt stored its email and sees the HTML part in its sandboxed frame, the subject and
the text part. (The browser, the screenshots and logging in: tests/system/browser.py.)"""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from notifications.models import Notification
from operations.reviewers import reviewers_group_ensure
from tests.factories import DeliveryAttemptFactory, OrderFactory
from tests.system.browser import admin_login

# The order's commit publishes its event to the run's vhost; nothing consumes it here.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def rendered() -> Notification:
    """Ada's confirmation after its first attempt: the email is stored with it."""
    order = OrderFactory.create(customer_email="ada@example.com", amount="49.90", currency="EUR")
    attempt = DeliveryAttemptFactory.create(notification=order.notifications.get(), outcome="accepted")
    return Notification.objects.get(pk=attempt.notification_id)


def test_a_reviewer_sees_the_stored_email_in_a_sandboxed_frame(page, live_server, rendered, screenshots):
    rita = User.objects.create_user("rita", password="rita-pw", is_staff=True)
    rita.groups.add(reviewers_group_ensure())
    page.route("https://shop.example.com/**", lambda route: route.abort())  # the logo: no network here
    admin_login(page, live_server.url, "rita", "rita-pw")
    page.goto(f"{live_server.url}/admin/notifications/notification/{rendered.pk}/change/")
    frame = page.locator("iframe.email-html")
    expect(frame).to_be_visible()
    assert frame.get_attribute("sandbox") == ""  # no scripts, no forms, no same origin
    expect(page.frame_locator("iframe.email-html").locator("h1")).to_have_text("Thank you for your order!")
    expect(page.locator(".email-subject")).to_have_text(rendered.email_subject)
    expect(page.locator("pre.email-text")).to_contain_text("€49.90")
    section = page.locator("fieldset", has=frame)
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(screenshots / "email-preview.png"))
