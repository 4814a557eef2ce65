"""Publishing a dead letter again: the same bytes and event id, to the work queue it came
from (never a delay queue), without the headers that would make Celery revoke, re-count or
loop it, confirmed by the broker. The caller acks the DLQ copy only after this returns, so
a crash in between leaves the copy where it was: at worst the event is published twice, and
the consumer's inbox makes that one effect."""

import uuid

from messaging.broker.headers import BROKER_DELIVERY_HEADERS
from messaging.broker.topology import RETRY_EXCHANGE
from messaging.dead_letters import publish as dl
from messaging.dead_letters.reader import DeadLetter
from messaging.relay.messages import RawMessage
from messaging.relay.publisher import PublishError, process_publisher

# Headers that belong to the dead-lettering, not to the task: a replay starts clean.
STRIPPED_HEADERS = {
    *BROKER_DELIVERY_HEADERS,
    dl.REASON_HEADER,
    dl.CLASS_HEADER,
    dl.AT_HEADER,
    dl.BY_HEADER,
    dl.ORIGIN_EXCHANGE_HEADER,
    dl.ORIGIN_ROUTING_KEY_HEADER,
    dl.QUEUE_HEADER,
}


def dead_letter_republish(letter: DeadLetter) -> None:
    """Raises PublishError unless the broker confirmed the copy."""
    headers = {key: value for key, value in letter.headers.items() if key not in STRIPPED_HEADERS}
    # An old `expires` would make Celery revoke and ack it; a stale `retries` would cut the
    # retry budget short (docs/celery-and-rabbitmq.md, "Replaying a dead letter").
    headers.update({"expires": None, "eta": None, "retries": 0})
    message = RawMessage(
        event_id=uuid.uuid4(),
        body=letter.body,
        exchange=RETRY_EXCHANGE.name,  # each work queue is bound there by its own name
        routing_key=letter.work_queue,
        content_type=letter.content_type,
        content_encoding=letter.content_encoding,
        headers=headers,
        properties={
            k: letter.properties[k] for k in ("message_id", "correlation_id") if letter.properties.get(k)
        },
    )
    report = process_publisher().publish([message])
    if report.failed:
        raise PublishError(report.failed[message.event_id])
