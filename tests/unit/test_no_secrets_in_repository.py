"""Passwords and keys come from the environment or the database, never from a tracked file.

The scanner is tested on samples first: a scan that finds nothing proves something only
if the same scan finds a real-looking secret. The samples are assembled at run time, so
that this file does not contain them itself.
"""

import pytest

from tests.unit.secret_scan import repository_scan, text_scan
from tools.drill.processes import REPO

# Real-looking secrets, one per kind the scanner knows (made up; none of them is valid).
SECRETS = {
    "private key": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7",
    "openssh private key": "-----BEGIN " + "OPENSSH PRIVATE KEY-----",
    "AWS access key id": "aws_access_key_id = " + "AKIA" + "Q3EGZ7KJ2MNB4XRT",
    "AWS secret access key": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "3xaMPLE9KY",
    "GitHub token": "token: " + "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "Slack token": "SLACK=" + "xoxb-" + "1234567890-abcdefghij",
    "Stripe-style key": "STRIPE_KEY=" + "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "Google API key": "key=" + "AIza" + "SyA-1234567890abcdefghijklmnopqrstu",
    "JSON web token": "Authorization: Bearer "
    + "eyJhbGciOiJIUzI1NiJ9."
    + "eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N",
    "broker URL with credentials": "CELERY_BROKER_URL=amqp://orders:"
    + "S3cr3t-Pr0d-pass"
    + "@rabbit:5672/orders",
    "database URL with credentials": 'DATABASE_URL = "postgres://app:' + "hunter2hunter2" + '@db/orders"',
    "password literal in Python": 'user = User.objects.create_user("ops", ' + "pass" + 'word="Summer2024!")',
    "password in an env file": "EMAIL_HOST_" + "PASSWORD=correct-horse-battery",
    "provider key in an env file": "MAIL_PROVIDER_" + "API_KEY=re_" + "Tq8s2bVh_3kLpXw9YzAaBbCcDdEe",
    "secret key in settings": 'SECRET_KEY = "' + "k#8f!2@zq9x-3v7m5n1b6c4" + '"',
    "password in YAML": "POSTGRES_" + "PASSWORD: s3cure-pr0d",
}

# The documented development placeholders and references to the environment.
NOT_SECRETS = [
    "DJANGO_SECRET_KEY=dev-only-insecure-key-change-me",
    "MAIL_PROVIDER_API_KEY=dev-mail-key",
    "CELERY_BROKER_URL=amqp://guest:guest@127.0.0.1:5672/orders",
    "#prod: DATABASE_URL=postgres://orders:<database-password>@db.internal:5432/orders",
    "#prod: MAIL_PROVIDER_API_KEY=<provider-api-key>",
    "EMAIL_HOST_PASSWORD=",
    'SECRET_KEY = env("DJANGO_SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)',
    "DJANGO_SECRET_KEY: ${DJANGO_SECRET_KEY:-compose-dev-only-secret-key-change-me}",
    "if SECRET_KEY == DEVELOPMENT_SECRET_KEY:",
    '"DELETE FROM records WHERE api_key_hash = ? AND idempotency_key = ?"',
    "- secretRef: {name: orders-secrets}",  # Kubernetes: a reference to a Secret, by its name
]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_the_scanner_finds_a_real_looking_secret(kind):
    assert text_scan(SECRETS[kind], path="sample.py") or text_scan(SECRETS[kind], path="sample.env"), kind


@pytest.mark.parametrize("line", NOT_SECRETS)
def test_the_scanner_lets_the_documented_placeholders_pass(line):
    path = "settings.py" if "(" in line or line.startswith("if ") else "sample.env"
    assert text_scan(line, path=path) == []


def test_a_secret_in_a_python_literal_is_found_but_a_variable_is_not():
    assert text_scan("connect(pass" + 'word="hunter2hunter2")', path="x.py")
    assert text_scan("connect(password=settings.EMAIL_HOST_PASSWORD)", path="x.py") == []


def test_no_tracked_file_holds_a_secret():
    findings = repository_scan(REPO)
    assert findings == [], "\n".join(f"{f.path}:{f.line}: {f.kind}: {f.text}" for f in findings)
