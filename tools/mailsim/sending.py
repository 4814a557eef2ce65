"""The send pipeline every wire goes through: read (auth, key, body), fault rules, idempotency, log.

Validation runs before faults so ``to_contains`` rules can see the recipients, and before the key
is taken so a rejected body never consumes the key. Each wire (tools/mailsim/wires/) only says how its
requests and answers look.
"""

import logging
import time

from tools.mailsim import idempotency
from tools.mailsim.faults import REFUSING_KINDS, FaultRule
from tools.mailsim.records import RequestLogEntry
from tools.mailsim.simulator import Simulator
from tools.mailsim.wire import Request, Response
from tools.mailsim.wires.base import EmailRequest, Outcome, Refusal, Wire

logger = logging.getLogger("mailsim.requests")


def handle_send(sim: Simulator, request: Request, wire: Wire) -> Response:
    # When the request arrived, not when it was decided: the store's writes (one at a time)
    # would otherwise bunch the arrivals that waited for them (the outage drill counts calls
    # per second from these times).
    arrived_at = sim.clock.now()
    event_id = request.headers.get("X-Event-Id")
    outcome, email = _decide(sim, request, wire, event_id)
    key = email.idempotency_key if email is not None else wire.logged_key(request.headers)
    response = outcome.response
    entry = RequestLogEntry(
        at=arrived_at,
        idempotency_key=key,
        event_id=event_id,
        status=0 if response.drop_connection else response.status,
        outcome=outcome.name,
        fault=outcome.fault,
        message_id=outcome.message_id,
        wire=wire.name,
        fingerprint=email.fingerprint if email is not None else None,
    )
    sim.store.log_request(entry)
    # One log line a request, so the event id that travelled in X-Event-Id finds it here too.
    logger.info(
        "request %s",
        outcome.name,
        extra={
            "component": "mailsim",
            "wire": wire.name,
            "event_id": event_id,
            "idempotency_key": key,
            "status": entry.status,
            "outcome": outcome.name,
            "message_id": entry.message_id,
        },
    )
    if outcome.stall_seconds:
        # The message is already stored and logged; only the answer is late.
        time.sleep(outcome.stall_seconds)
    return response


def _decide(
    sim: Simulator, request: Request, wire: Wire, event_id: str | None
) -> tuple[Outcome, EmailRequest | None]:
    email = None
    try:
        email = wire.read(sim, request.headers, request.body)
        rule = sim.faults.pick(email.recipients)
        if rule is not None and rule.kind in REFUSING_KINDS:
            if rule.kind == "stall_then_reject":
                time.sleep(rule.seconds or 0.0)
            raise wire.refuse(rule, email)
    except Refusal as refusal:
        return Outcome(refusal.response, refusal.name, fault=refusal.fault), email
    outcome = idempotency.accept(sim, wire, email, event_id, rule)
    return _apply_after_effect(outcome, rule), email


def _apply_after_effect(outcome: Outcome, rule: FaultRule | None) -> Outcome:
    if rule is None:
        return outcome
    outcome.fault = rule.kind
    if rule.kind == "accept_then_drop":
        outcome.response = Response(0, drop_connection=True)
        outcome.name = "dropped"
    elif rule.kind == "stall":
        outcome.stall_seconds = rule.seconds or 0.0
    return outcome
