"""The ``/_sim/`` control API that tests use to inspect and steer the simulator.

There is no authentication here on purpose: it is a dev/test tool. Never expose mailsim publicly.
"""

import math
from typing import Any
from urllib.parse import unquote

from tools.mailsim.attachments import content_path
from tools.mailsim.clock import to_iso
from tools.mailsim.faults import FaultRuleError
from tools.mailsim.records import PENDING, Delivery, KeyRecord, Message, RequestLogEntry
from tools.mailsim.simulator import Simulator
from tools.mailsim.webhooks.settings import WebhookSettingsError
from tools.mailsim.wire import HttpError, Request, Response, json_response, parse_json_object

OK = {"ok": True}


def health(sim: Simulator, request: Request) -> Response:
    return json_response(200, OK)


def list_messages(sim: Simulator, request: Request) -> Response:
    messages = sim.store.list_messages(request.query_value("idempotency_key"))
    wire = request.query_value("wire")
    if wire is not None:
        messages = [m for m in messages if m.wire == wire]
    recipient = request.query_value("to")
    if recipient is not None:
        # Addresses are matched case-insensitively, as mailbox domains are.
        wanted = recipient.lower()
        messages = [m for m in messages if wanted in (address.lower() for address in m.recipients)]
    return json_response(200, {"messages": [_message_json(m) for m in messages]})


def attachment_content(sim: Simulator, request: Request, message_id: str, position: int) -> Response:
    """The bytes of a message's attachment (`GET /_sim/messages/<id>/attachments/<n>`, n from 0)."""
    message_id = unquote(message_id)
    content = sim.store.attachment_content(message_id, position)
    message = sim.store.message(message_id)
    if content is None or message is None:
        raise HttpError(404, "not_found", f"Message {message_id!r} has no attachment {position}.")
    described = message.attachments[position]
    headers = {"Content-Type": described["content_type"], "X-Sha256": described["sha256"]}
    return Response(200, content, headers)


def list_requests(sim: Simulator, request: Request) -> Response:
    entries = sim.store.list_requests(request.query_value("idempotency_key"))
    return json_response(200, {"requests": [_request_json(entry) for entry in entries]})


def list_idempotency_records(sim: Simulator, request: Request) -> Response:
    records = sim.store.list_key_records()
    return json_response(200, {"records": [_record_json(record) for record in records]})


def reset(sim: Simulator, request: Request) -> Response:
    sim.reset()
    return json_response(200, OK)


def show_clock(sim: Simulator, request: Request) -> Response:
    return json_response(200, {"now": to_iso(sim.clock.now()), "offset_seconds": sim.clock.offset_seconds})


def advance_clock(sim: Simulator, request: Request) -> Response:
    seconds = parse_json_object(request.body).get("advance_seconds")
    if (
        not isinstance(seconds, int | float)
        or isinstance(seconds, bool)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise HttpError(400, "invalid_request", "`advance_seconds` must be a non-negative number.")
    sim.advance_clock(seconds)
    return show_clock(sim, request)


def show_faults(sim: Simulator, request: Request) -> Response:
    return json_response(200, sim.faults.snapshot())


def replace_faults(sim: Simulator, request: Request) -> Response:
    try:
        sim.faults.replace(parse_json_object(request.body))
    except FaultRuleError as exc:
        raise HttpError(400, "invalid_fault_rule", str(exc)) from None
    return show_faults(sim, request)


def clear_faults(sim: Simulator, request: Request) -> Response:
    sim.faults.clear()
    return show_faults(sim, request)


def show_webhooks(sim: Simulator, request: Request) -> Response:
    deliveries = sim.webhooks.queue.list(request.query_value("message_id"), request.query_value("wire"))
    body = {**sim.webhooks.settings.to_json(), "deliveries": [_delivery_json(d) for d in deliveries]}
    return json_response(200, body)


def update_webhooks(sim: Simulator, request: Request) -> Response:
    try:
        sim.webhooks.update(parse_json_object(request.body))
    except WebhookSettingsError as exc:
        raise HttpError(400, "invalid_webhook_settings", str(exc)) from None
    return show_webhooks(sim, request)


def _message_json(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "idempotency_key": message.idempotency_key,
        "to": list(message.recipients),
        "from": message.sender,
        "subject": message.subject,
        "text": message.text,
        "html": message.html,
        "event_id": message.event_id,
        "accepted_at": to_iso(message.accepted_at),
        "wire": message.wire,
        "tags": message.tags,
        "headers": message.headers,
        "metadata": message.metadata,
        "reply_to": message.reply_to,
        "message_stream": message.message_stream,
        "attachments": [
            {**described, "url": content_path(message.id, position)}
            for position, described in enumerate(message.attachments)
        ],
    }


def _request_json(entry: RequestLogEntry) -> dict[str, Any]:
    return {
        "at": to_iso(entry.at),
        "idempotency_key": entry.idempotency_key,
        "event_id": entry.event_id,
        "status": entry.status,
        "outcome": entry.outcome,
        "fault": entry.fault,
        "message_id": entry.message_id,
        "wire": entry.wire,
        "fingerprint": entry.fingerprint,
    }


def _record_json(record: KeyRecord) -> dict[str, Any]:
    return {
        "idempotency_key": record.idempotency_key,
        "state": record.state,
        "created_at": to_iso(record.created_at),
        "message_id": record.message_id,
        "wire": record.wire,
    }


def _delivery_json(delivery: Delivery) -> dict[str, Any]:
    # Webhooks go out in real time: these timestamps are wall-clock, not the simulator clock.
    return {
        "event_id": delivery.event_id,
        "wire": delivery.wire,
        "type": delivery.event_type,
        "message_id": delivery.message_id,
        "url": delivery.url,
        "state": delivery.state,
        "attempts": delivery.attempts,
        "last_status": delivery.last_status,
        "last_error": delivery.last_error,
        "next_attempt_at": to_iso(delivery.due_at) if delivery.state == PENDING else None,
        "delivered_at": None if delivery.delivered_at is None else to_iso(delivery.delivered_at),
    }
