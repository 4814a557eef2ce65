"""The log masking of tests/unit/test_log_masking.py in a real process: a fresh one configured
by our settings masks an address in its log lines, in both formats."""

import subprocess
import sys

from tools.drill.processes import REPO


def test_a_process_configured_by_our_settings_masks_its_log_lines():
    # The real logging config of every Django and Celery process (config/settings/base.py),
    # both formats, in a fresh process.
    script = (
        "import django, logging; django.setup(); "
        "logging.getLogger('celery.app.trace').error('Task failed: refused frank@example.com')"
    )
    for log_format in ("json", "plain"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO,
            env={
                "PATH": "/usr/bin:/bin",
                "DJANGO_SETTINGS_MODULE": "config.settings.base",
                "LOG_FORMAT": log_format,
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "refused f***@example.com" in done.stderr, done.stderr
        assert "frank@" not in done.stderr
