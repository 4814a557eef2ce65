"""The test run: its own RabbitMQ vhost (created and removed by tests/conftest.py) and
pytest-django's own database, so a `make run` stack on the same machine is untouched."""

import os
import uuid

from config.settings.base import *  # noqa: F403
from config.settings.base import CELERY_BROKER_URL
from infra.rabbitmq import broker_url_with_vhost

TEST_RABBITMQ_VHOST = os.environ.setdefault("TEST_RABBITMQ_VHOST", f"orders-test-{uuid.uuid4().hex[:8]}")
CELERY_BROKER_URL = broker_url_with_vhost(CELERY_BROKER_URL, TEST_RABBITMQ_VHOST)
