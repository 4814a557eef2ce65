"""The admin in a real browser (Playwright driving Debian's Chromium), for the browser tests:
the `page` and `screenshots` fixtures (conftest.py) and logging in.

Screenshots go to the test's temporary folder, or to docs/screenshots/ with
UPDATE_SCREENSHOTS=1 (that is how the README's pictures are made)."""

import os

from playwright.sync_api import Page, expect

# Playwright's sync API runs an event loop in this thread; the ORM calls of a browser test are
# still plain synchronous calls from the test, so Django's async guard does not apply.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def admin_login(page: Page, base: str, username: str, password: str) -> None:
    """Log in; the admin then shows the notifications list."""
    page.goto(f"{base}/admin/login/?next=/admin/notifications/notification/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    expect(page.locator("#content h1")).to_contain_text("notification")
