"""The channel our code talks to, typed as what it is.

Our broker URLs are `amqp://` (kombu's py-amqp transport), whose channels are py-amqp
channels with kombu's additions (`kombu.transport.pyamqp.Channel`); kombu's stubs type
`Connection.channel()` as the transport-neutral `StdChannel`, which has none of the AMQP
methods (basic_get, queue_declare, confirm_select) that we call.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import amqp
from kombu import Connection

if TYPE_CHECKING:
    from kombu.transport import pyamqp

    class AmqpChannel(pyamqp.Channel):
        # Set by py-amqp's Channel.__init__ (the callbacks of confirms and returns); the stub omits it.
        events: dict[str, set[Callable[..., None]]]


def amqp_channel(connection: Connection) -> "AmqpChannel":
    return cast("AmqpChannel", connection.channel())


def queue_counts(channel: amqp.Channel, queue: str) -> tuple[int, int]:
    """(messages ready, consumers) of a queue that exists, by a passive declare."""
    declared = channel.queue_declare(queue=queue, passive=True)
    assert declared is not None  # None only for a declare with nowait
    _, messages, consumers = declared
    return messages, consumers
