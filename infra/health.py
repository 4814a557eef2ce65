"""Readiness: can this process do its work right now?"""

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from notifications.broker.declare import topology_missing


def readiness_problems() -> list[str]:
    problems = []
    try:
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            problems.append("database: migrations not applied")
    except Exception as exc:
        problems.append(f"database: {type(exc).__name__}: {exc}")
    try:
        missing = topology_missing(broker_url=settings.CELERY_BROKER_URL)
        if missing:
            problems.append("broker: queues not declared: " + ", ".join(missing))
    except Exception as exc:
        problems.append(f"broker: {type(exc).__name__}: {exc}")
    return problems
