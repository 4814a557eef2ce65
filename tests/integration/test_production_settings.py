"""The production profile of .env.example passes Django's deployment checks, and production
refuses to start with a development key or debug pages. Each case runs `manage.py` in a
fresh process with only the environment it names, as a deployment would."""

import base64
import json
import secrets
import subprocess
import sys

import pytest

from drill.processes import REPO

PROFILE_PREFIX = "#prod: "
# Settings that each keep `check --deploy` quiet; without any one of them it must warn.
HTTPS_SETTINGS = [
    "DJANGO_ENV",
    "DJANGO_SECURE_SSL_REDIRECT",
    "DJANGO_SESSION_COOKIE_SECURE",
    "DJANGO_CSRF_COOKIE_SECURE",
    "DJANGO_SECURE_HSTS_SECONDS",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "DJANGO_SECURE_HSTS_PRELOAD",
]


def production_profile() -> dict[str, str]:
    """The `#prod: NAME=value` lines of .env.example."""
    profile = {}
    for line in (REPO / ".env.example").read_text().splitlines():
        if line.startswith(PROFILE_PREFIX):
            name, _, value = line.removeprefix(PROFILE_PREFIX).partition("=")
            profile[name.strip()] = value.strip()
    return profile


def _with_generated_key(profile: dict[str, str]) -> dict[str, str]:
    """The profile with what a deployment's secret store gives in place of its placeholders."""
    signing_key = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    return {
        **profile,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "RESEND_WEBHOOK_SECRET": signing_key,
    }


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    # Nothing of the test run's environment leaks in (no DJANGO_DEBUG, no test settings).
    base = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def _settings_seen(env: dict[str, str], *names: str) -> dict:
    script = (
        "import json, django; from django.conf import settings; django.setup(); "
        f"print(json.dumps({{n: getattr(settings, n) for n in {list(names)!r}}}))"
    )
    base = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_profile_sets_production_and_https():
    profile = production_profile()
    assert profile["DJANGO_ENV"] == "production"
    assert profile["DJANGO_DEBUG"] == "false"
    assert {*HTTPS_SETTINGS, "DJANGO_ALLOWED_HOSTS", "DJANGO_SECURE_PROXY_SSL_HEADER"} <= set(profile)


def test_check_deploy_passes_without_a_warning_with_the_production_profile():
    done = _manage(
        "check", "--deploy", "--fail-level", "WARNING", env=_with_generated_key(production_profile())
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stderr


@pytest.mark.parametrize("missing", HTTPS_SETTINGS)
def test_check_deploy_warns_when_one_production_setting_is_missing(missing):
    profile = _with_generated_key(production_profile())
    del profile[missing]
    done = _manage("check", "--deploy", "--fail-level", "WARNING", env=profile)
    assert done.returncode != 0
    assert "WARNINGS:" in done.stderr or "ERRORS:" in done.stderr


def test_production_refuses_to_start_with_the_profile_s_placeholder_key():
    done = _manage("check", env=production_profile())
    assert done.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY is the development key or shorter than 50" in done.stderr


def test_production_refuses_to_start_with_the_development_key():
    profile = production_profile()
    del profile["DJANGO_SECRET_KEY"]  # falls back to the development key
    done = _manage("check", env=profile)
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY is the development key" in done.stderr


@pytest.mark.parametrize("secret", ["", "<resend-webhook-signing-secret>"], ids=["empty", "placeholder"])
def test_production_refuses_to_start_while_the_delivery_webhook_cannot_verify_events(secret):
    done = _manage(
        "check", env={**_with_generated_key(production_profile()), "RESEND_WEBHOOK_SECRET": secret}
    )
    assert done.returncode != 0
    assert "notifications.E006" in done.stderr
    assert "/webhooks/resend/ cannot verify requests" in done.stderr


def test_production_refuses_to_start_with_debug_pages():
    done = _manage("check", env={**_with_generated_key(production_profile()), "DJANGO_DEBUG": "true"})
    assert done.returncode != 0
    assert "DJANGO_DEBUG must be false in production" in done.stderr


@pytest.mark.parametrize(
    ("switch", "refusal"),
    [
        (
            {"FAULT_CRASH_POINT": "worker.after_commit"},
            "FAULT_CRASH_POINT='worker.after_commit' is a drill's",
        ),
        (
            {"MESSAGING_EVENT_CATALOGUES": "orders.events,drill.broken_build"},
            "MESSAGING_EVENT_CATALOGUES names drill or test code (drill.broken_build)",
        ),
    ],
    ids=["crash point", "broken-build catalogue"],
)
def test_production_refuses_to_start_with_a_drill_fault_switch(switch, refusal):
    done = _manage("check", env={**_with_generated_key(production_profile()), **switch})
    assert done.returncode != 0
    assert f"ImproperlyConfigured: {refusal}" in done.stderr
    # and the same switch is accepted in development, where the drills set it
    assert _manage("check", env=switch).returncode == 0


def test_development_runs_with_the_development_key_and_debug_is_off_unless_asked_for():
    assert _settings_seen({}, "DEBUG", "DJANGO_ENV", "SECURE_SSL_REDIRECT") == {
        "DEBUG": False,
        "DJANGO_ENV": "development",
        "SECURE_SSL_REDIRECT": False,
    }
    assert _settings_seen({"DJANGO_DEBUG": "true"}, "DEBUG") == {"DEBUG": True}


def test_production_trusts_the_proxy_s_https_header_and_keeps_debug_off():
    profile = _with_generated_key(production_profile())
    del profile["DJANGO_DEBUG"]
    assert _settings_seen(profile, "DEBUG", "SECURE_PROXY_SSL_HEADER") == {
        "DEBUG": False,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
    }


def test_plain_http_is_redirected_except_for_probes_and_metrics(client, settings):
    # given the production redirect (the setting is read per request by SecurityMiddleware)
    settings.SECURE_SSL_REDIRECT = True
    # then a page is moved to HTTPS, but the probes answer over plain HTTP
    assert client.get("/admin/login/").status_code == 301
    assert client.get("/healthz").status_code == 200
