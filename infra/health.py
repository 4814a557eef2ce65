"""Readiness: can this process do its work right now? Each check is found by dotted path in
settings READINESS_CHECKS (the database here, the broker's topology in messaging) and
returns what is not ready: the part, and the cause in words.

/readyz answers anyone who reaches it (probes come by the pod's address, before the host
check), so it names only the part; the cause (an exception's text: hosts, ports, user names)
goes to the process's log."""

import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unready:
    part: str  # "database", "broker": all that /readyz says
    cause: str  # for the log


def readiness_problems() -> list[str]:
    """What /readyz says: each part that is not ready; each cause is logged."""
    found: list[Unready] = [
        problem for path in settings.READINESS_CHECKS for problem in import_string(path)()
    ]
    for problem in found:
        logger.warning("not ready: %s: %s", problem.part, problem.cause)
    return [f"{problem.part}: not ready (the cause is in this process's log)" for problem in found]


def database_problems() -> list[Unready]:
    try:
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            return [Unready("database", "migrations not applied")]
    except Exception as exc:
        return [Unready("database", f"{type(exc).__name__}: {exc}")]
    return []
