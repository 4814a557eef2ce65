"""The production profile of .env.example passes Django's deployment checks, production
is HTTPS only unless told otherwise, and it refuses to start with a development key or
debug pages; the Docker image is production's, docker-compose.yml's stack development's; the
web serves nothing in production while `check --deploy` reports an error. Each case runs
`manage.py` (or bin/web) in a fresh process with only the environment it names, as a
deployment would."""

import base64
import json
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deployment_files import compose_service_env, image_env
from tools.drill.processes import REPO, ManagedProcess, free_port

PROFILE_PREFIX = "#prod: "
# Settings that each keep `check --deploy` quiet, on by default in production; turned off,
# each one must make it warn.
HTTPS_SETTINGS_OFF = {
    "DJANGO_ENV": "development",
    "DJANGO_SECURE_SSL_REDIRECT": "false",
    "DJANGO_SESSION_COOKIE_SECURE": "false",
    "DJANGO_CSRF_COOKIE_SECURE": "false",
    "DJANGO_SECURE_HSTS_SECONDS": "0",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "false",
    "DJANGO_SECURE_HSTS_PRELOAD": "false",
}
HTTPS_SETTINGS_SEEN = [
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
]
# docker-compose.yml's services that run the product's Django code (not the simulator).
COMPOSE_DJANGO_SERVICES = ["init", "web", "worker", "relay", "beat", "flower"]


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
        "PERSONAL_DATA_HASH_KEY": secrets.token_urlsafe(32),
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


def test_the_profile_sets_production_and_the_tls_proxy_s_header():
    profile = production_profile()
    assert profile["DJANGO_ENV"] == "production"
    assert profile["DJANGO_DEBUG"] == "false"
    assert {"DJANGO_ALLOWED_HOSTS", "DJANGO_SECURE_PROXY_SSL_HEADER"} <= set(profile)


def test_check_deploy_passes_without_a_warning_with_the_production_profile():
    done = _manage(
        "check", "--deploy", "--fail-level", "WARNING", env=_with_generated_key(production_profile())
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stderr


@pytest.mark.parametrize("turned_off", HTTPS_SETTINGS_OFF)
def test_check_deploy_warns_when_one_production_setting_is_turned_off(turned_off):
    profile = _with_generated_key(production_profile()) | {turned_off: HTTPS_SETTINGS_OFF[turned_off]}
    done = _manage("check", "--deploy", "--fail-level", "WARNING", env=profile)
    assert done.returncode != 0
    assert "WARNINGS:" in done.stderr or "ERRORS:" in done.stderr


def test_production_is_https_only_by_default():
    seen = _settings_seen(
        {
            "DJANGO_ENV": "production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "PERSONAL_DATA_HASH_KEY": secrets.token_urlsafe(32),
        },
        *HTTPS_SETTINGS_SEEN,
    )
    assert seen == {
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
    }


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


@pytest.mark.parametrize("key", [None, "<personal-data-hash-key>"], ids=["unset", "placeholder"])
def test_production_refuses_to_start_without_its_own_personal_data_hash_key(key):
    profile = _with_generated_key(production_profile())
    if key is None:
        del profile["PERSONAL_DATA_HASH_KEY"]  # falls back to one derived for development
    else:
        profile["PERSONAL_DATA_HASH_KEY"] = key
    done = _manage("check", env=profile)
    assert done.returncode != 0
    assert "ImproperlyConfigured: PERSONAL_DATA_HASH_KEY is unset or shorter than 32" in done.stderr


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
            {"MESSAGING_EVENT_CATALOGUES": "orders.events,tools.drill.broken_build"},
            "MESSAGING_EVENT_CATALOGUES names drill or test code (tools.drill.broken_build)",
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
    assert _settings_seen({}, "DEBUG", "DJANGO_ENV", *HTTPS_SETTINGS_SEEN) == {
        "DEBUG": False,
        "DJANGO_ENV": "development",
        "SECURE_SSL_REDIRECT": False,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
    }
    assert _settings_seen({"DJANGO_DEBUG": "true"}, "DEBUG") == {"DEBUG": True}


@pytest.mark.parametrize("hosts", ["orders.example.com", "127.0.0.1,orders.example.com", "*"])
def test_a_public_host_without_django_env_runs_as_production_and_refuses_the_development_key(hosts):
    # given: a Procfile or VM deploy that names its host and forgot DJANGO_ENV
    deploy = {"DJANGO_ALLOWED_HOSTS": hosts}
    # then: production's defaults, and the development key refused at start-up
    assert _settings_seen(
        {**deploy, "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "PERSONAL_DATA_HASH_KEY": "k" * 32},
        "DJANGO_ENV",
        "SECURE_HSTS_SECONDS",
        "SESSION_COOKIE_SECURE",
    ) == {"DJANGO_ENV": "production", "SECURE_HSTS_SECONDS": 365 * 24 * 3600, "SESSION_COOKIE_SECURE": True}
    done = _manage("check", env=deploy)
    assert done.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY is the development key" in done.stderr


def test_local_hosts_or_an_explicit_development_stay_development():
    assert _settings_seen({"DJANGO_ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}, "DJANGO_ENV") == {
        "DJANGO_ENV": "development"
    }
    explicit = {"DJANGO_ALLOWED_HOSTS": "orders.example.com", "DJANGO_ENV": "development"}
    assert _settings_seen(explicit, "DJANGO_ENV") == {"DJANGO_ENV": "development"}


def test_the_image_runs_as_production_and_refuses_to_start_without_a_production_key():
    done = _manage("check", env=image_env())
    assert done.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY is the development key" in done.stderr


@pytest.mark.parametrize("service", COMPOSE_DJANGO_SERVICES)
def test_compose_s_services_start_from_the_image_as_development(service):
    # (their database and broker are compose's own hosts; `check` reaches neither)
    done = _manage("check", env=image_env() | compose_service_env(service))
    assert done.returncode == 0, done.stderr
    assert _settings_seen(image_env() | compose_service_env(service), "DJANGO_ENV") == {
        "DJANGO_ENV": "development"
    }


def test_the_image_build_collects_the_static_files_despite_its_production_default(tmp_path):
    # the Dockerfile's collectstatic step, run as the build runs it, into a directory of the test
    dockerfile = (REPO / "Dockerfile").read_text().splitlines()
    [step] = [line for line in dockerfile if line.startswith("RUN ") and "collectstatic" in line]
    command = step.removeprefix("RUN ").split(" && ")[0].rstrip(" \\")
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=REPO,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp"}
        | image_env()
        | {"DJANGO_STATIC_ROOT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{shlex.quote(command)}: {done.stderr}"
    assert (tmp_path / "admin" / "css" / "base.css").is_file()


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


def test_the_web_refuses_to_serve_in_production_while_check_deploy_reports_an_error(tmp_path):
    # given production with one error of the checks: the mail simulator's URL as the provider's
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        **_with_generated_key(production_profile()),
        "MAIL_PROVIDER_URL": "http://127.0.0.1:8025",
        "WEB_BIND": "127.0.0.1",
        "WEB_PORT": str(free_port()),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    # when bin/web starts
    web = ManagedProcess("web", ["bin/web"], env=env, log_path=tmp_path / "web.log")
    try:
        web.start(ready="Worker failed to boot", timeout=90)
        # then it exits with the check's message instead of serving
        assert web.process.wait(timeout=30) != 0
    finally:
        web.stop()
    log = web.log_text()
    assert "The web serves nothing in production while `manage.py check --deploy` reports an error" in log
    assert "(notifications.E004) Mail provider 'resend': MAIL_PROVIDER_URL='http://127.0.0.1:8025'" in log
