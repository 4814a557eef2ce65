"""A wording published under an earlier, wider template language would fail every email of
its kind after the upgrade: `migrate` refuses to run while one is live, naming it."""

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.utils import timezone

from notifications.models import EmailTemplateVersion

pytestmark = pytest.mark.django_db

SHIPPED_LIKE = {
    "subject": "Order {{ order.number }}",
    "text": '{% extends "notifications/email/base.txt" %}{% block content %}Thanks{% endblock %}',
    "html": "<p>Thanks</p>",
}


def _live(number: int, **parts: str) -> EmailTemplateVersion:
    # Stored as an earlier release stored it: without this release's rules.
    return EmailTemplateVersion.objects.create(
        kind="order_confirmation",
        locale="en",
        number=number,
        created_by_name="erin",
        published_at=timezone.now(),
        **(SHIPPED_LIKE | parts),
    )


def test_migrate_refuses_while_a_live_wording_uses_what_this_release_refuses():
    # given a live wording of an earlier release that uses a filter
    _live(1, text="Thanks {{ order.number|upper }}")
    # when the upgrade migrates
    with pytest.raises(SystemCheckError) as refused:
        call_command("migrate", "--no-input", skip_checks=False, verbosity=0)
    # then it names the version and what it uses, and how to go on
    assert "notifications.E008" in str(refused.value)
    assert "order_confirmation (en) v1" in str(refused.value)
    assert "|upper" in str(refused.value)
    assert "retire it" in str(refused.value)


def test_migrate_goes_on_once_the_wording_is_retired_and_ignores_retired_ones():
    version = _live(1, text="{% if order.number %}Thanks{% endif %}")
    version.retired_at = timezone.now()
    version.save(update_fields=["retired_at"])
    _live(2)
    call_command("migrate", "--no-input", skip_checks=False, verbosity=0)


def test_a_process_starting_reads_no_database_for_it(settings):
    # `manage.py check` and every process's start run the checks without a database: they
    # must not need one (a fresh machine has none before `ensure_database`).
    _live(1, text="Thanks {{ order.number|upper }}")
    assert [e for e in checks.run_checks() if e.id == "notifications.E008"] == []
    assert [e.id for e in checks.run_checks(databases=["default"]) if e.id == "notifications.E008"] == [
        "notifications.E008"
    ]
