"""`make run` generates the webhook secrets the simulator signs with and the web checks with
(scripts/dev-webhook-secrets.sh): the endpoints must accept them as secrets they can verify
with, or every delivery event of a development run would be answered 503."""

import subprocess
import sys

from notifications.providers.anymail_webhooks import AnymailTrackingWebhook, anymail_tracking_webhook
from notifications.providers.resend import ResendWebhook
from tools.drill.processes import REPO


def _generated(tmp_path) -> dict[str, str]:
    subprocess.run(
        ["sh", str(REPO / "scripts" / "dev-webhook-secrets.sh")],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
        check=True,
        timeout=30,
    )
    lines = (tmp_path / "var" / "webhook-secrets.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_the_generated_secrets_are_ones_the_webhooks_verify_with(tmp_path, settings):
    generated = _generated(tmp_path)
    settings.RESEND_WEBHOOK_SECRET = generated["RESEND_WEBHOOK_SECRET"]
    settings.ANYMAIL = {"WEBHOOK_SECRET": generated["ANYMAIL_WEBHOOK_SECRET"]}
    assert ResendWebhook().verification_problems() == []
    assert _webhook("brevo").verification_problems() == []
    assert _webhook("postmark").verification_problems() == []


def test_a_resend_secret_that_is_not_a_svix_secret_is_named_as_the_problem(settings):
    for malformed in ("plain-text", "whsec_", "whsec_not base64!"):
        settings.RESEND_WEBHOOK_SECRET = malformed
        assert ResendWebhook().verification_problems() == [
            "RESEND_WEBHOOK_SECRET is not a Svix signing secret (whsec_ and base64)."
        ]


def _webhook(esp: str) -> AnymailTrackingWebhook:
    webhook = anymail_tracking_webhook(esp)
    assert webhook is not None, f"Anymail has a tracking webhook for {esp}"
    return webhook
