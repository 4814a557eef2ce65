"""Readiness: can this process do its work right now? Each check is found by dotted path in
settings READINESS_CHECKS (the database here, the broker's topology in messaging) and
returns its problems in words, or none."""

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils.module_loading import import_string


def readiness_problems() -> list[str]:
    return [problem for path in settings.READINESS_CHECKS for problem in import_string(path)()]


def database_problems() -> list[str]:
    try:
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            return ["database: migrations not applied"]
    except Exception as exc:
        return [f"database: {type(exc).__name__}: {exc}"]
    return []
