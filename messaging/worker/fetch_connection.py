"""The broker connection a pool process takes waiting messages along on (messaging/worker/
companions.py): one per process, made on first use after the fork.

Closing it gives back to the broker every message taken on it and not yet settled, which the
broker delivers again (marked redelivered), as it does when the process dies.
"""

import logging
import os
import time

from celery import Task
from kombu import Connection

logger = logging.getLogger(__name__)

# One connection per pool process, made on first use (after the fork): (pid, connection, when
# last handed out). It negotiates the broker's heartbeat like the consumer's, so that the broker
# drops it when its host goes silent (a cut link) and puts back what it had taken: without
# one, a host whose link went down kept its taken messages out of every other worker's reach.
# Nothing sends heartbeats between tasks, so the broker also drops one left idle for two
# heartbeats; one idle for a heartbeat is replaced before it is used.
_connection: tuple[int, Connection, float] | None = None
# Its socket's read and write limit (SO_RCVTIMEO, SO_SNDTIMEO). An idle connection whose peer
# went silent without a reset (a broker host that died, a firewall or NAT that dropped the idle
# flow) otherwise held the next basic.get, and then the close, until the hard time limit
# killed the pool process; a broker answers a basic.get in milliseconds.
SOCKET_TIMEOUT_SECONDS = 5.0


def fetch_connection(task: Task) -> Connection:
    global _connection
    now = time.monotonic()
    if (
        _connection is not None
        and _connection[0] == os.getpid()
        and now - _connection[2] > _idle_limit(_connection[1])
    ):
        fetch_connection_drop()
    if _connection is None or _connection[0] != os.getpid():
        connection = task.app.connection_for_read(heartbeat=task.app.conf.broker_heartbeat)
        # Each node of the broker list once, without kombu's pauses between tries (2 s and
        # more): while a node is down, a delivery that cannot reach another at once runs alone
        # rather than wait.
        connection.transport_options = {
            **(connection.transport_options or {}),
            **{
                "max_retries": len(connection.alt) or 1,
                "interval_start": 0,
                "interval_step": 0,
                "interval_max": 0,
                # kombu's py-amqp transport hands these to amqp.Connection
                "read_timeout": SOCKET_TIMEOUT_SECONDS,
                "write_timeout": SOCKET_TIMEOUT_SECONDS,
            },
        }
        _connection = (os.getpid(), connection, now)
    _connection = (_connection[0], _connection[1], now)
    return _connection[1]


def _idle_limit(connection: Connection) -> float:
    """Seconds this connection may sit idle before it is replaced: its negotiated heartbeat
    (none negotiated: no limit)."""
    if not connection.connected:
        return float("inf")
    return float(connection.connection.heartbeat or "inf")


def fetch_connection_drop() -> None:
    """Close this process's fetch connection without AMQP's close handshake (kombu's
    `Connection.collect`): the broker requeues what was taken on it when the socket closes,
    and a handshake with a peer that stopped answering would wait for it."""
    global _connection
    if _connection is not None and _connection[0] == os.getpid():
        try:
            _connection[1].collect()
        except Exception:
            logger.debug("closing a broken fetch connection failed", exc_info=True)
    _connection = None
