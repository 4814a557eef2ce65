"""Creating the application database on a fresh machine (development and CI only)."""

from typing import Any

import psycopg
from django.conf import settings
from psycopg import sql


def database_ensure(config: dict[str, Any] | None = None) -> bool:
    """Create the database (default: the configured one) if it does not exist; True if created."""
    config = config or settings.DATABASES["default"]
    params: dict[str, Any] = {
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "dbname": "postgres",  # the maintenance database every cluster has
        "connect_timeout": 5,
        # among several hosts, the primary: a standby cannot create a database
        "target_session_attrs": config.get("OPTIONS", {}).get("target_session_attrs"),
        "autocommit": True,
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v is not None}) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]
        ).fetchone()
        if exists:
            return False
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config["NAME"])))
        return True
