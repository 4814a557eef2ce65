"""The reconciliation screens in a real browser (Playwright driving Debian's Chromium): a
reviewer opens the last reconcile report and reads its ledger (accepted against done, per
day, email and currency), goes to the mismatches she owns, and closes one with a comment;
the close is recorded. (tests/integration/test_reconciliation.py checks the figures.)"""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from notifications.models import Notification, OperatorAction, ReconcileMismatch
from operations.reconciliation.run import reconcile_run
from operations.reviewers import reviewers_group_ensure
from tests.factories import OrderFactory
from tests.system.browser import admin_login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def rita() -> User:
    user = User.objects.create_user("rita", password="rita-pw", is_staff=True)
    user.groups.add(reviewers_group_ensure())
    return user


@pytest.fixture
def report(rita):
    """Three orders whose confirmations nobody sent (no worker runs), one of them lost from
    the database altogether, and a reconcile run that found them."""
    orders = [OrderFactory.create(amount=amount) for amount in ("49.90", "12.00", "7.50")]
    Notification.objects.filter(order=orders[2]).delete()
    return reconcile_run(stuck_after=timedelta(0))


def test_a_reviewer_reads_the_ledger_and_closes_her_mismatch_in_the_browser(
    page, live_server, rita, report, screenshots
):
    admin_login(page, live_server.url, "rita", "rita-pw")
    page.goto(f"{live_server.url}/admin/notifications/reconcilereport/")
    expect(page.locator("#result_list")).to_contain_text("3 not done")
    page.click(f"#result_list a[href$='/{report.pk}/change/']")
    ledger = page.locator("table.reconcile-ledger")
    expect(ledger).to_contain_text("order_confirmation")
    expect(ledger.locator("tr.reconcile-open")).to_contain_text("69.40")  # 49.90 + 12.00 + 7.50
    page.screenshot(path=str(screenshots / "reconcile-report.png"), full_page=True)
    # her mismatches
    page.goto(f"{live_server.url}/admin/notifications/reconcilemismatch/?state=mine")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#result_list")).to_contain_text("accepted order without its email")
    page.screenshot(path=str(screenshots / "reconcile-mismatches.png"), full_page=True)
    missing = ReconcileMismatch.objects.get(problem="missing_email")
    page.check(f"input[name=_selected_action][value='{missing.pk}']")
    page.select_option("select[name=action]", "close_with_comment")
    page.fill("input[name=comment]", "The customer ordered again by phone")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("1 mismatch(es) closed.")
    expect(rows).to_have_count(2)
    missing.refresh_from_db()
    assert missing.resolved_by == rita
    assert (
        OperatorAction.objects.get(action="resolve_mismatch").comment == "The customer ordered again by phone"
    )
