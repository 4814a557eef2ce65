"""The shop's brand settings are checked when a process starts (notifications.E005): a
relative logo URL or a misspelt colour is refused with the setting's name, instead of
showing up broken in customers' inboxes."""

import subprocess
import sys

from tools.drill.processes import REPO


def _check(**environment: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": "/tmp",
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            **environment,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_default_brand_passes():
    result = _check()
    assert result.returncode == 0, result.stderr


def test_a_broken_brand_is_refused_naming_each_setting():
    result = _check(
        SHOP_LOGO_URL="/static/logo.png",
        SHOP_URL="http://shop.example.com",
        SHOP_PRIMARY_COLOR="blue",
        SHOP_SUPPORT_EMAIL="support",
        SHOP_DEFAULT_LOCALE="de",
        SHOP_NAME=" ",
    )
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "notifications.E005" in line]
    assert len(errors) == 6, result.stderr
    for expected in (
        "SHOP_DEFAULT_LOCALE='de' is not one of en, ru",
        "SHOP_URL='http://shop.example.com' must be an absolute https:// URL",
        "SHOP_LOGO_URL='/static/logo.png' must be an absolute https:// URL",
        "SHOP_PRIMARY_COLOR='blue' must be a colour written #rrggbb",
        "SHOP_SUPPORT_EMAIL='support' is not an email address",
        "SHOP_NAME is empty",
    ):
        assert expected in result.stderr


def test_legal_data_an_eu_confirmation_needs_are_refused_naming_each_setting():
    result = _check(
        SHOP_LEGAL_NAME="",
        SHOP_LEGAL_ADDRESS=" ",
        SHOP_TERMS_URL="shop.example.com/terms",
        SHOP_WITHDRAWAL_URL="http://shop.example.com/withdrawal",
        SHOP_WITHDRAWAL_DAYS="7",
    )
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "notifications.E005" in line]
    assert len(errors) == 5, result.stderr
    for expected in (
        "SHOP_LEGAL_NAME is empty; an EU order confirmation must name who sells, and where",
        "SHOP_LEGAL_ADDRESS is empty",
        "SHOP_TERMS_URL='shop.example.com/terms' must be an absolute https:// URL",
        "SHOP_WITHDRAWAL_URL='http://shop.example.com/withdrawal' must be an absolute https:// URL",
        "SHOP_WITHDRAWAL_DAYS=7: the right of withdrawal is at least 14 days in the EU",
    ):
        assert expected in result.stderr
