"""The screens a new user opens first, in a real browser at a desktop's 1280x800 and a phone's
390x844: the dashboard, the review list, an email's page, the reconciliation's mismatches and
report, the dead letters and the mail provider's page, with emails in every state. At 390 px
nothing may stick out of the viewport: no element reaches past its right edge unless it sits
inside a box that scrolls sideways (a wide table in its own scroller), and the page itself
never scrolls sideways. With UPDATE_SCREENSHOTS=1 the pictures go to docs/screenshots/ (the
README's tour)."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from notifications.models import Notification
from operations.reconciliation.run import reconcile_run
from operations.reviewers import reviewers_group_ensure
from tests.factories import DeliveryAttemptFactory, NotificationFactory
from tests.integration.dead_letter_support import dead_letter_of
from tests.system.browser import admin_login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
# Elements whose right edge passes the viewport's, outside any box that scrolls sideways.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  return [...document.querySelectorAll('body *')]
    .filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > width + 1 && !scrolls(el);
    })
    .map((el) => el.tagName + (el.id ? '#' + el.id : '') + '.' + [...el.classList].join('.'));
}"""


@pytest.fixture
def every_state():
    """Emails in each state a reviewer meets, with attempts, and a reconcile run over them."""
    user = User.objects.create_user("rita", password="rita-pw", is_staff=True)
    user.groups.add(reviewers_group_ensure())
    sent = NotificationFactory.create(
        status="sent", sent_at=timezone.now(), order__customer_email="ada@example.com"
    )
    failed = NotificationFactory.create(
        failed=True, order__customer_email="grace.hopper.with.a.long.address@example.com"
    )
    DeliveryAttemptFactory.create(
        notification=failed, outcome="permanent", http_status=422, duration_ms=3, worker="app1:21008"
    )
    NotificationFactory.create(needs_review=True)
    NotificationFactory.create(
        status="skipped", last_error="The order was cancelled before its confirmation was sent."
    )
    NotificationFactory.create()  # pending
    Notification.objects.update(status_changed_at=timezone.now() - timedelta(minutes=20))
    report = reconcile_run(stuck_after=timedelta(minutes=15))
    dead_letter_of(failed.order)  # as the worker left it: refused by the provider
    return {"sent": sent, "failed": failed, "report": report}


def _screens(base: str, every_state) -> dict[str, str]:
    return {
        "dashboard": f"{base}/admin/dashboard/",
        "review-list": f"{base}/admin/notifications/notification/",
        "email-page": f"{base}/admin/notifications/notification/{every_state['failed'].pk}/change/",
        "mismatches": f"{base}/admin/notifications/reconcilemismatch/?state=open",
        "reconcile-report": f"{base}/admin/notifications/reconcilereport/{every_state['report'].pk}/change/",
        "dead-letters": f"{base}/admin/dead-letters/",
        "mail-provider": f"{base}/admin/mail-provider/",
    }


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_first_screen_reads_well_on_a_desktop_and_a_phone(
    page, live_server, every_state, screenshots, viewport
):
    width, height = VIEWPORTS[viewport]
    page.set_viewport_size({"width": width, "height": height})
    admin_login(page, live_server.url, "rita", "rita-pw")
    for name, url in _screens(live_server.url, every_state).items():
        page.goto(url)
        assert page.locator("#content h1").count() == 1, f"{name}: one heading"
        page.screenshot(path=str(screenshots / f"{name}-{width}.png"), full_page=True)
        if viewport == "phone":
            assert page.evaluate(OVERFLOWING) == [], f"{name} sticks out at {width} px"
            assert page.evaluate("document.scrollingElement.scrollWidth") <= width, f"{name} scrolls sideways"


def test_the_list_shows_badges_reasons_in_words_and_remembers_its_filters(page, live_server, every_state):
    admin_login(page, live_server.url, "rita", "rita-pw")
    page.click("text=failed or needs review")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    failed_row = rows.filter(has_text="grace.hopper")
    expect(failed_row.locator(".status-badge.status-failed")).to_have_text("failed")
    expect(failed_row.locator(".status-reason")).to_contain_text("refused the email")
    expect(failed_row).to_contain_text("20\u00a0minutes")
    # leave the list, come back through the menu: the filter is still on
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main a[href$='/admin/notifications/notification/']")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert "needs_person=yes" in page.url
    # the email's page labels each attempt in words
    page.goto(f"{live_server.url}/admin/notifications/notification/{every_state['failed'].pk}/change/")
    expect(page.locator("text=Attempt 1 — permanent, 3 ms, app1 pid 21008")).to_have_count(1)
