"""In production the provider API's URL must be HTTPS to a host that is neither this machine
nor the mail simulator (notifications.E004, run when every process starts): each spelling of
a loopback address the HTTP client would connect to is refused, a public provider passes."""

import secrets

import pytest

from notifications.checks import mail_provider_check


@pytest.fixture
def production(settings):
    settings.DJANGO_ENV = "production"
    settings.MAIL_PROVIDER = "resend"
    settings.MAIL_PROVIDER_API_KEY = secrets.token_urlsafe(24)  # not the simulator's
    return settings


def _url_errors(settings, url: str) -> list[str]:
    settings.MAIL_PROVIDER_URL = url
    errors = mail_provider_check(None)
    assert {error.id for error in errors} <= {"notifications.E004"}
    return [error.msg for error in errors]


@pytest.mark.parametrize(
    "url",
    [
        "https://api.resend.com",
        "https://api.brevo.com/",
        "https://mail-gateway.internal.example.com",  # a relay of the company's own
        "https://10.20.30.40",
        "https://[2001:db8::25]:443",
    ],
)
def test_a_public_https_provider_passes(production, url):
    assert _url_errors(production, url) == []


def test_an_empty_url_means_the_provider_s_public_api_and_passes(production):
    assert _url_errors(production, "") == []


@pytest.mark.parametrize("url", ["http://api.resend.com", "HTTP://api.resend.com", "ftp://api.resend.com"])
def test_a_url_that_is_not_https_is_refused(production, url):
    # (the Resend provider itself also refuses a scheme that is not http(s) in lower case)
    assert any("is not https://" in error for error in _url_errors(production, url))


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1",
        "https://127.0.0.1:8443/",
        "https://127.10.20.30",  # all of 127.0.0.0/8 is loopback
        "https://localhost",
        "https://LocalHost./",
        "https://api.localhost",  # RFC 6761: every name under localhost
        "https://ip6-localhost",
        "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",  # full-width, IDNA folds it
        "https://[::1]",
        "https://[0:0:0:0:0:0:0:1]:443",
        "https://[::ffff:127.0.0.1]",  # IPv4-mapped
        "https://[::ffff:7f00:1]",
        "https://[::127.0.0.1]",  # IPv4-compatible
        "https://[::]",
        "https://0.0.0.0",
        "https://0",
        "https://2130706433",  # 127.0.0.1 as one decimal integer
        "https://0x7f000001",  # ... hexadecimal
        "https://0177.0.0.1",  # ... octal
        "https://127.1",  # ... in two parts
        "https://0x7f.0.0.1",
    ],
)
def test_every_spelling_of_this_machine_is_refused(production, url):
    [error] = _url_errors(production, url)
    assert "names this machine" in error


@pytest.mark.parametrize(
    "url",
    ["https://mailsim", "https://mailsim.orders.svc.cluster.local", "https://mail.example.com:8025"],
)
def test_the_simulator_s_name_or_port_is_refused(production, url):
    [error] = _url_errors(production, url)
    assert "is the mail simulator" in error


def test_the_development_default_is_refused_for_both_reasons(production):
    errors = _url_errors(production, "http://127.0.0.1:8025")
    assert len(errors) == 2
    assert "is not https://" in errors[0]
    assert "names this machine" in errors[1]


@pytest.mark.parametrize("url", ["https://[::1", "https://api.resend.com:port", "https://"])
def test_a_url_without_a_valid_host_is_refused(production, url):
    [error] = _url_errors(production, url)
    assert "host" in error


def test_development_accepts_the_local_simulator(settings):
    settings.DJANGO_ENV = "development"
    assert _url_errors(settings, "http://127.0.0.1:8025") == []


@pytest.mark.parametrize(
    ("endpoint", "refused"),
    [
        ("", False),  # AWS's own endpoint of the region
        ("https://email.eu-west-1.amazonaws.com", False),
        ("http://127.0.0.1:5000", True),  # a moto server of development
        ("https://localhost:4566", True),
    ],
)
def test_an_ses_endpoint_is_held_to_the_same_rule(settings, endpoint, refused):
    settings.DJANGO_ENV = "production"
    settings.MAIL_PROVIDER = "ses"
    settings.AWS_SES_REGION = "eu-west-1"
    settings.AWS_SES_ENDPOINT_URL = endpoint
    errors = [error.msg for error in mail_provider_check(None)]
    assert any(f"AWS_SES_ENDPOINT_URL={endpoint!r}" in error for error in errors) == refused
