"""A switch setting (config/settings/environment.py, `switch`) reads on and off as env.bool does,
and refuses any other word: a misspelt PARCEL_IN_TRANSIT_EMAIL stops every process at start-up
instead of silently keeping the customer's email off."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.environment import switch

REPO = Path(__file__).resolve().parents[2]
NAME = "PARCEL_IN_TRANSIT_EMAIL"


@pytest.mark.parametrize("said", ["true", "True", "on", "yes", "1", " y "])
def test_the_words_for_on_turn_it_on(monkeypatch, said):
    monkeypatch.setenv(NAME, said)
    assert switch(NAME, default=False) is True


@pytest.mark.parametrize("said", ["false", "FALSE", "off", "no", "n", "0", ""])
def test_the_words_for_off_turn_it_off(monkeypatch, said):
    monkeypatch.setenv(NAME, said)
    assert switch(NAME, default=True) is False


@pytest.mark.parametrize("default", [False, True])
def test_unset_it_is_its_default(monkeypatch, default):
    monkeypatch.delenv(NAME, raising=False)
    assert switch(NAME, default=default) is default


@pytest.mark.parametrize("said", ["ture", "enabled", "2", "true # in transit"])
def test_any_other_word_is_refused_naming_the_setting(monkeypatch, said):
    monkeypatch.setenv(NAME, said)
    with pytest.raises(ImproperlyConfigured, match=f"{NAME} is .*: write true or false"):
        switch(NAME, default=False)


def test_a_misspelt_in_transit_email_stops_the_process_at_start_up():
    # when: any process starts (manage.py, as the web, the worker and beat do) with a typo
    started = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=os.environ | {NAME: "ture"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    # then
    assert started.returncode != 0
    assert f"{NAME} is 'ture': write true or false." in started.stderr


def _switches_read_in_settings() -> list[str]:
    """Every setting read as a switch, from the settings' source."""
    names: list[str] = []
    for module in sorted((REPO / "config" / "settings").glob("*.py")):
        names += re.findall(r'switch\("([A-Z_]+)"', module.read_text())
    return names


def test_every_on_off_setting_is_a_switch_the_https_ones_included():
    # A setting read with env.bool turns "ture" into off: for DJANGO_SECURE_SSL_REDIRECT or the
    # cookies' Secure flag that would quietly weaken production's HTTPS.
    source = "".join(module.read_text() for module in (REPO / "config" / "settings").glob("*.py"))
    assert "env.bool(" not in source
    assert {"DJANGO_SECURE_SSL_REDIRECT", "DJANGO_SESSION_COOKIE_SECURE", "DJANGO_CSRF_COOKIE_SECURE"} <= set(
        _switches_read_in_settings()
    )


def test_a_misspelt_https_setting_stops_the_process_at_start_up():
    started = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=os.environ | {"DJANGO_SECURE_SSL_REDIRECT": "ture"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode != 0
    assert "DJANGO_SECURE_SSL_REDIRECT is 'ture': write true or false." in started.stderr
