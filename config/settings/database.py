"""The database's settings (read by base.py): its address, DATABASE_URL, one host or every
node of a replicated cluster, and how the processes keep their connections.

One host is read as django-environ reads it. Several, comma-separated in the URL's host part
(libpq's multi-host form, `postgres://orders@db1:5432,db2:5432,db3:5432/orders?
target_session_attrs=read-write`), go to libpq as its host and port lists: each new connection
tries them in turn and keeps the first that takes writes, so after a failover every process
finds the new primary by itself, whatever promoted it (Patroni, a managed service). A single
endpoint that always leads to the primary (a managed service's, HAProxy's) is one host.
"""

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

from config.settings.environment import env, switch

__all__ = ["DATABASES", "DATABASE_PREPARED_STATEMENTS", "DATABASE_SESSION_PLANS_BY_KEY"]
DEFAULT_PORT = 5432  # libpq's, for a host given without one
# What may land a connection on the primary: every process of the product writes.
WRITABLE_SESSION_ATTRS = ("read-write", "primary")
# Seconds libpq waits for each host before it tries the next, unless the URL says otherwise:
# a node that accepts the connection and then answers nothing (a frozen machine) would
# otherwise hold every connection attempt until TCP gives up, minutes later.
MULTI_HOST_CONNECT_TIMEOUT_SECONDS = 3


def database_config(url: str) -> dict[str, Any]:
    """Django's DATABASES entry for `url`; ImproperlyConfigured, in words, for one libpq
    would misread (a bad port) or that could land on a standby."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # unbalanced brackets around an IPv6 address
        raise ImproperlyConfigured(f"DATABASE_URL is not a URL: {exc}") from None
    userinfo, at, host_part = parts.netloc.rpartition("@")
    entries = host_part.split(",")
    if len(entries) == 1:
        return env.db_url_config(url)
    hosts, ports = zip(*(_host_and_port(entry) for entry in entries), strict=True)
    first = urlunsplit(parts._replace(netloc=f"{userinfo}{at}{entries[0]}"))
    config = env.db_url_config(first)
    config["HOST"], config["PORT"] = ",".join(hosts), ",".join(str(port) for port in ports)
    options = config.setdefault("OPTIONS", {})
    if options.get("target_session_attrs") not in WRITABLE_SESSION_ATTRS:
        raise ImproperlyConfigured(
            f"DATABASE_URL names {len(hosts)} hosts without target_session_attrs=read-write: a "
            "connection could land on a standby, which refuses every write. Add "
            "?target_session_attrs=read-write."
        )
    options.setdefault("connect_timeout", MULTI_HOST_CONNECT_TIMEOUT_SECONDS)
    return config


def _host_and_port(entry: str) -> tuple[str, int]:
    """One `host[:port]` of a multi-host URL (an IPv6 address in brackets, as in any URL)."""
    if entry.startswith("["):
        host, bracket, rest = entry[1:].partition("]")
        port_text = rest.removeprefix(":") if bracket and rest[:1] in ("", ":") else "?"
    else:
        host, _, port_text = entry.partition(":")
    if not host or (port_text and not (port_text.isdigit() and 0 < int(port_text) < 65536)):
        raise ImproperlyConfigured(
            f"DATABASE_URL: {entry!r} is not a host[:port] (several hosts are separated by commas: "
            "db1:5432,db2:5432)"
        )
    return host, int(port_text) if port_text else DEFAULT_PORT


DATABASES = {
    "default": database_config(env.str("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/orders")),
}
# Persistent connections for web processes; Celery workers use CELERY_DB_REUSE_MAX (pipeline.py).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
# A kept connection is checked before a request uses it: one to a primary that died or was
# demoted is replaced by a new one, to whichever node leads now, without a restart.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The hot path's statements as prepared statements (infra/prepared.py); off for a pooler that
# cannot keep them.
DATABASE_PREPARED_STATEMENTS = switch("DATABASE_PREPARED_STATEMENTS", default=True)
# The email worker's sessions plan every statement as a lookup by key (messaging/worker/
# key_lookup_plans.py); off behind a pooler in transaction mode, where a session's settings do
# not stay with the client that made them.
DATABASE_SESSION_PLANS_BY_KEY = switch("DATABASE_SESSION_PLANS_BY_KEY", default=True)
