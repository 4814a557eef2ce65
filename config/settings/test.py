"""The test run: its own RabbitMQ vhost (created and removed by tests/conftest.py) and its
own database (created and dropped by pytest-django), both named for this run, so neither a
`make run` stack nor another test run on the same machine is touched. Under pytest-xdist each
process of the run has its own of both: pytest-django suffixes the database with the process's
name (gw0, gw1, ...), and the vhost takes the same suffix here."""

import os
import time
import uuid

from django.conf import global_settings

from config.settings.base import *  # noqa: F403
from config.settings.base import CELERY_BROKER_URL, DATABASES
from infra.rabbitmq import broker_url_with_vhost

# When the run started (epoch seconds) and a random part: a run that was killed leaves its
# vhost and database behind, and a later run deletes them once they are old (tests/stale_runs.py).
RUN_ID = os.environ.setdefault("TEST_RUN_ID", f"{int(time.time())}_{uuid.uuid4().hex[:6]}")
_XDIST_PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "")
TEST_RABBITMQ_VHOST = os.environ.get("TEST_RABBITMQ_VHOST") or "-".join(
    filter(None, ["orders-test", RUN_ID, _XDIST_PROCESS])
)
CELERY_BROKER_URL = broker_url_with_vhost(CELERY_BROKER_URL, TEST_RABBITMQ_VHOST)
DATABASES["default"]["TEST"] = {"NAME": f"test_orders_{RUN_ID}"}
# The live server answers each request on a new thread; a persistent connection there would
# outlive the thread and keep the test database from being dropped at the end.
DATABASES["default"]["CONN_MAX_AGE"] = 0
# Passwords hashed in a few rounds (tests/password_hasher.py says why); the production hashers
# follow, so a hash any of them made still verifies.
PASSWORD_HASHERS = ["tests.password_hasher.FewRoundsPBKDF2PasswordHasher", *global_settings.PASSWORD_HASHERS]
