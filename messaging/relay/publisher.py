"""Publishing Celery task messages with pipelined publisher confirms and `mandatory`.

Why not `task.delay()`: Celery's `confirm_publish` waits for each confirm in turn, which caps
a relay near 1,000 messages/s; here a batch is written first and the confirms are collected
together. And without `mandatory` an unroutable message is acked and dropped even with
confirms on; here the broker returns it and we say so (docs/celery-and-rabbitmq.md,
"Publishing: confirms and mandatory").

Only public APIs: Celery builds each task message (`app.amqp.create_task_message`, what its
own `send_task` calls), kombu serializes the body with the app's task serializer, and
py-amqp's `Channel.basic_publish` writes it on a channel in confirm mode (`confirm_select`),
whose acks, nacks and returns arrive through the channel's `events` callbacks.
"""

import logging
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import amqp
from django.conf import settings
from kombu import Connection

from infra.rabbitmq import broker_urls
from messaging.broker.channel import amqp_channel
from messaging.relay.messages import TRACKING_HEADER, OutgoingMessage, RawMessage, amqp_message

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0  # also the write timeout: a broker that stops reading fails us


@dataclass
class PublishReport:
    confirmed: list[uuid.UUID] = field(default_factory=list)
    # Failed messages with the reason: returned unroutable, nacked, or no confirm in time.
    failed: dict[uuid.UUID, str] = field(default_factory=dict)


class PublishError(Exception):
    """The connection or channel failed; nothing in the batch may be counted as published."""


class ConfirmingPublisher:
    """One connection and one confirm-mode channel, reused across batches.

    Heartbeats are off because the relay can sit idle between batches and cannot answer them
    (kombu #1024); a dead connection shows up as an error, a write timeout or a missing
    confirm instead, and the publisher is then rebuilt.
    """

    def __init__(
        self, *, broker_url: str, confirm_timeout: float, connect_timeout: float = CONNECT_TIMEOUT_SECONDS
    ):
        self.broker_url = broker_url
        self._confirm_timeout = confirm_timeout
        self._connect_timeout = connect_timeout
        self._connection: Connection | None = None
        self._channel: amqp.Channel | None = None
        self._published = 0  # delivery tags count from 1 on a confirm-mode channel
        self._pending: dict[int, uuid.UUID] = {}
        self._returned: dict[uuid.UUID, str] = {}
        self._nacked: set[uuid.UUID] = set()

    def publish(
        self, messages: Sequence[OutgoingMessage | RawMessage], *, confirm_timeout: float | None = None
    ) -> PublishReport:
        """Publish and collect the confirms. A connection the broker had accepted before
        that breaks during the publish (its node died, a proxy cut it) gets one more try on
        a fresh connection, which goes through the node list, so a cluster's lost node costs
        the caller a reconnect, not a pause (what the broker took before the break goes out
        again: the consumers' inbox absorbs the copy). A connect failure, or a timeout, is not
        tried again here: against a broker that is really away, every caller makes one try."""
        confirm_timeout = confirm_timeout or self._confirm_timeout
        held_a_connection = self._channel is not None
        try:
            return self._publish(messages, confirm_timeout)
        except Exception as exc:
            self.close()
            if not held_a_connection or isinstance(exc, TimeoutError):
                raise PublishError(f"{type(exc).__name__}: {exc}") from exc
            logger.warning(
                "the broker connection broke (%s: %s); publishing again on a new one", type(exc).__name__, exc
            )
        try:
            return self._publish(messages, confirm_timeout)
        except Exception as exc:
            self.close()
            raise PublishError(f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        """Drop the connection without the AMQP closing handshake: we close after errors
        and missing confirms, when a broker that stopped answering would never send the
        close-ok, and waiting for it would hang the caller."""
        connection, self._connection = self._connection, None
        self._channel = None
        self._pending.clear()
        if connection is not None:
            try:
                connection.collect()
            except Exception:  # the socket may already be gone; it is released either way
                logger.debug("releasing a broken broker connection failed", exc_info=True)

    def _publish(
        self, messages: Sequence[OutgoingMessage | RawMessage], confirm_timeout: float
    ) -> PublishReport:
        channel = self._ensure_channel()
        self._returned.clear()
        self._nacked.clear()
        self._write(channel, messages)
        unconfirmed = self._wait_for_confirms(confirm_timeout)
        report = PublishReport()
        for message in messages:
            if message.event_id in self._returned:
                report.failed[message.event_id] = self._returned[message.event_id]
            elif message.event_id in self._nacked:
                report.failed[message.event_id] = "the broker refused the message (nack)"
            elif message.event_id in unconfirmed:
                report.failed[message.event_id] = f"no confirm from the broker within {confirm_timeout:g} s"
            else:
                report.confirmed.append(message.event_id)
        if unconfirmed:
            # A late confirm would be matched to the wrong batch: start a fresh channel.
            self.close()
        return report

    def _write(self, channel: amqp.Channel, messages: Sequence[OutgoingMessage | RawMessage]) -> None:
        """Every message of the batch before any confirm is awaited: the confirms are
        collected together afterwards (the broker numbers them in publish order)."""
        for message in messages:
            self._published += 1
            self._pending[self._published] = message.event_id
            channel.basic_publish(
                amqp_message(message),
                exchange=message.exchange,
                routing_key=message.routing_key,
                mandatory=True,  # an unroutable message comes back (_on_return) instead of vanishing
            )

    def _ensure_channel(self) -> amqp.Channel:
        if self._channel is not None:
            return self._channel
        connection = Connection(
            self.broker_url,
            heartbeat=0,
            connect_timeout=self._connect_timeout,
            # A broker that stops reading (memory alarm, half-open socket) must not hang us.
            transport_options={"write_timeout": self._connect_timeout},
        )
        # One try per node of a cluster's list (kombu moves to the next node after a failure,
        # without a pause inside a round); a single node gets its second try, as before.
        connection.ensure_connection(max_retries=max(1, len(broker_urls(self.broker_url)) - 1))
        channel = amqp_channel(connection)
        channel.confirm_select()
        channel.events["basic_ack"].add(self._on_ack)
        channel.events["basic_nack"].add(self._on_nack)
        channel.events["basic_return"].add(self._on_return)
        self._connection, self._channel = connection, channel
        self._published = 0
        return channel

    def _wait_for_confirms(self, confirm_timeout: float) -> set[uuid.UUID]:
        assert self._connection is not None  # _publish ensured it
        deadline = time.monotonic() + confirm_timeout
        while self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                self._connection.drain_events(timeout=remaining)
            except TimeoutError:
                break
        return set(self._pending.values())

    def _answered_pop(self, delivery_tag: int, multiple: bool) -> list[uuid.UUID]:
        """The events of the messages the broker's ack or nack answers, no longer pending."""
        tags = [tag for tag in self._pending if tag <= delivery_tag] if multiple else [delivery_tag]
        return [self._pending.pop(tag) for tag in tags if tag in self._pending]

    def _on_ack(self, delivery_tag: int, multiple: bool) -> None:
        self._answered_pop(delivery_tag, multiple)

    def _on_nack(self, delivery_tag: int, multiple: bool) -> None:
        self._nacked.update(self._answered_pop(delivery_tag, multiple))

    def _on_return(self, exc: Exception, exchange: str, routing_key: str, message: amqp.Message) -> None:
        # A returned message is still acked afterwards; the return is what tells us no queue
        # took it. It arrives before that ack on the same channel.
        headers = message.properties.get("application_headers") or {}
        event_id = uuid.UUID(headers[TRACKING_HEADER])
        self._returned[event_id] = f"unroutable: no queue is bound to {exchange!r} with key {routing_key!r}"


_local = threading.local()


def process_publisher() -> ConfirmingPublisher:
    """The publisher of this process and thread, created on first use (after a fork)."""
    publisher = getattr(_local, "publisher", None)
    if publisher is None or publisher.broker_url != settings.CELERY_BROKER_URL:
        if publisher is not None:
            publisher.close()
        publisher = ConfirmingPublisher(
            broker_url=settings.CELERY_BROKER_URL,
            confirm_timeout=settings.OUTBOX_CONFIRM_TIMEOUT_SECONDS,
        )
        _local.publisher = publisher
    return publisher
