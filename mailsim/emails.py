"""``POST /emails``: Resend's send endpoint with provider-style idempotency and injectable faults.

Order of checks: auth, Idempotency-Key header, body validation, fault rules, idempotency. Validation
runs before faults so ``to_contains`` rules can see the recipients, and before the key is taken so
a rejected body never consumes the key.
"""

import hmac
import logging
import time
import uuid
from dataclasses import dataclass

from mailsim.faults import REFUSING_KINDS, FaultRule
from mailsim.records import IN_FLIGHT, KeyRecord, Message, RequestLogEntry
from mailsim.simulator import Simulator
from mailsim.validation import EmailRequest, ValidationError, parse_email
from mailsim.wire import Request, Response, error_response, json_response

MAX_KEY_LENGTH = 256
logger = logging.getLogger("mailsim.requests")


@dataclass
class Outcome:
    response: Response
    # Logged in /_sim/requests: "accepted", "replayed", "dropped" or the error name sent back.
    name: str
    message_id: str | None = None
    fault: str | None = None
    stall_seconds: float = 0.0


def handle_send(sim: Simulator, request: Request) -> Response:
    key = request.headers.get("Idempotency-Key")
    event_id = request.headers.get("X-Event-Id")
    outcome = _decide(sim, request, key, event_id)
    response = outcome.response
    entry = RequestLogEntry(
        at=sim.clock.now(),
        idempotency_key=key,
        event_id=event_id,
        status=0 if response.drop_connection else response.status,
        outcome=outcome.name,
        fault=outcome.fault,
        message_id=outcome.message_id,
    )
    sim.store.log_request(entry)
    # One log line a request, so the event id that travelled in X-Event-Id finds it here too.
    logger.info(
        "request %s",
        outcome.name,
        extra={
            "component": "mailsim",
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


def _decide(sim: Simulator, request: Request, key: str | None, event_id: str | None) -> Outcome:
    denied = _authenticate(sim, request)
    if denied is not None:
        return denied
    if key is not None and not 1 <= len(key) <= MAX_KEY_LENGTH:
        message = f"The Idempotency-Key header must be 1 to {MAX_KEY_LENGTH} characters long."
        return _error(400, "invalid_idempotency_key", message)
    try:
        email = parse_email(request.body)
    except ValidationError as exc:
        return _error(422, "validation_error", str(exc))
    rule = sim.faults.pick(email.recipients)
    if rule is not None and rule.kind in REFUSING_KINDS:
        return _refuse(rule)
    hold_seconds = (rule.seconds or 0.0) if rule is not None and rule.kind == "hold" else 0.0
    outcome = _accept(sim, email, key, event_id, hold_seconds)
    return _apply_after_effect(outcome, rule)


def _authenticate(sim: Simulator, request: Request) -> Outcome | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        message = "Missing API key in the authorization header. Include `Authorization: Bearer YOUR_API_KEY`."
        return _error(401, "missing_api_key", message)
    if not hmac.compare_digest(token.encode(), sim.api_key.encode()):
        return _error(401, "invalid_api_key", "API key is invalid.")
    return None


def _refuse(rule: FaultRule) -> Outcome:
    if rule.kind == "stall_then_reject":
        time.sleep(rule.seconds or 0.0)
    if rule.kind == "reject":
        return _error(422, "validation_error", "The recipient address was rejected", fault=rule.kind)
    retry_after = {"Retry-After": str(rule.retry_after)}
    if rule.kind == "429":
        message = "Too many requests. Please limit the number of requests per second."
        return _error(429, "rate_limit_exceeded", message, retry_after, rule.kind)
    message = "The mail service is temporarily unavailable. Please retry later."
    return _error(503, "service_unavailable", message, retry_after, rule.kind)


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


def _accept(
    sim: Simulator, email: EmailRequest, key: str | None, event_id: str | None, hold_seconds: float
) -> Outcome:
    if key is None:
        time.sleep(hold_seconds)
        message = _new_message(sim, email, key, event_id)
        sim.store.add_message(message)
        return Outcome(_created(message), "accepted", message.id)
    now = sim.clock.now()
    existing = sim.store.take_key(
        sim.api_key_hash, key, email.fingerprint, now, sim.idempotency_window_seconds
    )
    if existing is not None:
        return _answer_existing(existing, email.fingerprint)
    try:
        # The key is in_flight for the whole hold: concurrent requests with it get 409.
        time.sleep(hold_seconds)
        message = _new_message(sim, email, key, event_id)
        response = _created(message)
        sim.store.complete_key(sim.api_key_hash, key, message, response.status, response.body)
    except BaseException:
        sim.store.release_key(sim.api_key_hash, key)
        raise
    return Outcome(response, "accepted", message.id)


def _answer_existing(record: KeyRecord, fingerprint: str) -> Outcome:
    if record.state == IN_FLIGHT:
        message = "Same idempotency key used while original request is still in progress."
        return _error(409, "concurrent_idempotent_requests", message)
    if record.fingerprint != fingerprint:
        message = "Same idempotency key used with a different request payload."
        return _error(409, "invalid_idempotent_request", message)
    response = Response(record.response_status or 200, record.response_body or b"")
    response.headers["Idempotent-Replayed"] = "true"
    return Outcome(response, "replayed", record.message_id)


def _new_message(sim: Simulator, email: EmailRequest, key: str | None, event_id: str | None) -> Message:
    return Message(
        id=f"msg_{uuid.uuid4().hex}",
        idempotency_key=key,
        event_id=event_id,
        sender=email.sender,
        recipients=email.recipients,
        subject=email.subject,
        text=email.text,
        html=email.html,
        accepted_at=sim.clock.now(),
    )


def _created(message: Message) -> Response:
    return json_response(200, {"id": message.id})


def _error(
    status: int, name: str, message: str, headers: dict[str, str] | None = None, fault: str | None = None
) -> Outcome:
    return Outcome(error_response(status, name, message, headers), name, fault=fault)
