"""Messages a batch meets in the queue but does not take along (messaging/worker/
companions.py): settled here, so that none is left unacknowledged on the connection it was
taken on."""

import uuid
from typing import cast

from kombu.message import Message

from messaging.broker.headers import BROKER_DELIVERY_HEADERS
from messaging.broker.topology import RETRY_EXCHANGE
from messaging.dead_lettering import dead_letter_message
from messaging.relay.messages import RawMessage
from messaging.relay.publisher import PublishError, process_publisher


def message_dead_letter(message: Message, reason: str, error_class: str, hostname: str) -> None:
    """A copy with its reason to the dead-letter queue, confirmed, then the original acked."""
    if dead_letter_message(message, reason=reason, error_class=error_class, worker=hostname):
        message.ack()
    else:  # the broker dead-letters it (at-least-once), without our reason
        message.reject(requeue=False)


_KEPT_PROPERTIES = ("message_id", "correlation_id")


def message_give_back(message: Message, queue: str) -> None:
    """Put a message the batch cannot run back at the end of its queue, for the worker's
    consumer: a copy published and confirmed, then the original acked. Not a requeue, which a
    quorum queue counts as a delivery: batches meeting it again and again would have the
    broker dead-letter it at the delivery limit. Falls back to the requeue."""
    copy = RawMessage(
        event_id=uuid.uuid4(),
        body=cast(bytes | str, message.body),
        exchange=RETRY_EXCHANGE.name,  # each work queue is bound there by its own name
        routing_key=queue,
        content_type=message.content_type,
        content_encoding=message.content_encoding,
        headers={k: v for k, v in (message.headers or {}).items() if k not in BROKER_DELIVERY_HEADERS},
        properties={k: v for k, v in (message.properties or {}).items() if k in _KEPT_PROPERTIES},
    )
    try:
        report = process_publisher().publish([copy])
    except PublishError:
        report = None
    if report is None or report.failed:
        message.reject(requeue=True)
    else:
        message.ack()
