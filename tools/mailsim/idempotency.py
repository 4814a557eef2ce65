"""Accepting a valid send: with a key, the key is taken before the message is stored; the
message's webhook deliveries are planned and stored with it.

Keys are recorded per (API key, wire) in ``idempotency_records``; the wire decides what a taken
key answers (Resend replays, Brevo refuses) and how long it is remembered. A key stays
``in_flight`` for the whole ``hold`` of a fault rule, so concurrent requests with it see it.
"""

import time

from tools.mailsim.faults import FaultRule
from tools.mailsim.records import Message
from tools.mailsim.simulator import Simulator
from tools.mailsim.wires.base import EmailRequest, Outcome, Wire


def accept(
    sim: Simulator, wire: Wire, email: EmailRequest, event_id: str | None, rule: FaultRule | None
) -> Outcome:
    hold_seconds = (rule.seconds or 0.0) if rule is not None and rule.kind == "hold" else 0.0
    key = email.idempotency_key
    window_seconds = wire.key_window_seconds(sim)
    if key is None or window_seconds is None:
        time.sleep(hold_seconds)
        message = _new_message(sim, wire, email, event_id)
        sim.store.add_message(message, sim.webhooks.plan(message, rule), _contents(email))
        sim.webhooks.notify()
        return Outcome(wire.accepted(message), "accepted", message.id)
    scope = sim.key_scope(wire.name)
    now = sim.clock.now()
    existing = sim.store.take_key(scope, key, email.fingerprint, now, window_seconds, wire.name)
    if existing is not None:
        return wire.answer_existing(existing, email.fingerprint)
    try:
        time.sleep(hold_seconds)
        message = _new_message(sim, wire, email, event_id)
        response = wire.accepted(message)
        deliveries = sim.webhooks.plan(message, rule)
        answer = (response.status, response.body)
        sim.store.complete_key(scope, key, message, answer, deliveries, _contents(email))
    except BaseException:
        sim.store.release_key(scope, key)
        raise
    sim.webhooks.notify()
    return Outcome(response, "accepted", message.id)


def _new_message(sim: Simulator, wire: Wire, email: EmailRequest, event_id: str | None) -> Message:
    return Message(
        id=wire.new_message_id(sim),
        idempotency_key=email.idempotency_key,
        event_id=event_id,
        sender=email.sender,
        recipients=email.recipients,
        subject=email.subject,
        text=email.text,
        html=email.html,
        accepted_at=sim.clock.now(),
        wire=wire.name,
        tags=email.tags,
        headers=email.headers,
        metadata=email.metadata,
        reply_to=email.reply_to,
        message_stream=email.message_stream,
        attachments=[attachment.describe() for attachment in email.attachments],
    )


def _contents(email: EmailRequest) -> tuple[bytes, ...]:
    return tuple(attachment.content for attachment in email.attachments)
