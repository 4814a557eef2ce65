"""Unit tests run in seconds and need no service: no database, no broker, no process of the
product. A test here that asks for one (a `django_db` mark, or a fixture that starts or
reaches a service) fails at collection: it belongs in tests/integration."""

from pathlib import Path

import pytest

UNIT = Path(__file__).parent

# The fixtures every service-bound fixture of tests/conftest.py and pytest-django leads to.
SERVICE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "live_server",
    "broker",
    "mailsim_process",
    "processes_database_url",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(UNIT):
            continue
        services = SERVICE_FIXTURES & set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("django_db") or services:
            raise pytest.UsageError(
                f"{item.nodeid} needs a service ({', '.join(sorted(services)) or 'django_db'}): "
                "move it to tests/integration"
            )
