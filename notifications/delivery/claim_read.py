"""The claim's locked read: one statement for one delivery or a batch of them (a single
delivery is a batch of one), instead of the ORM's sequence of reads. Anything unusual takes the
ORM path in claims.py. Table names come from the models, so a renamed table cannot leave a
stale statement behind."""

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import JSONField, Model

from infra.numbered_statements import numbered_statement, statement_execute
from infra.prepared import prepared_cursor
from messaging.models import ProcessedEvent
from notifications.delivery.circuit import CLOSED, CircuitSeen
from notifications.delivery.statements import LOCK_WAIT_SET, lock_wait
from notifications.documents.attached import CARRYING_KINDS
from notifications.models import EmailTemplateVersion, Notification, ProviderCircuit
from notifications.tracking.suppression import SUPPRESSION_OF_ORDER_SQL
from orders.models import Invoice, Order, OrderEdit, OrderVersion, Refund, Shipment
from shops.models import SHOP_EMAIL_FIELDS, Shop


def columns_of(model: type[Model], alias: str) -> str:
    return ", ".join(
        f"{alias}.{connection.ops.quote_name(field.column)}" for field in model._meta.concrete_fields
    )


def _attnames(model: type[Model]) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


# Every (order, kind) wanted, in one round trip: the order and its notification under their row
# locks, whether the inbox has the event, the address's active suppression (by the rule of
# tracking.suppression.suppression_active, from the order's row: SUPPRESSION_OF_ORDER_SQL), the
# live wording override (what content.sources.live_version says) and the providers' circuits
# (circuit.py; MAIL_PROVIDER's and its fallback's, routing.py), unlocked: no row means closed.
# Lock order everywhere: the order row, then its notification (PostgreSQL locks them in the
# order of FOR ... OF), row after row in order id order (LockRows runs above the sort); so
# claims never deadlock with each other or with an order's change
# (tests/integration/test_claim_lock_order.py shows both).
# A row held longer than DELIVERY_LOCK_WAIT_SECONDS ends the wait (statements.py, LOCK_WAIT_SET).
# Until the email is rendered (its snapshot), also what was bought: the order's content in the
# version the notification's event saw (Notification.content_version).
# And what the email is about beyond the order, as JSON: the row of its shipment or refund, or
# for a cancellation the refunds announced with it and the sum of those made before it
# ({"refunds": [...], "refunded_before": minor units}); NULL for the others.
_SUBJECT_ROWS: dict[str, type[Shipment | Refund | OrderEdit]] = {
    Notification.Kind.ORDER_EDIT: OrderEdit,
    Notification.Kind.ORDER_SHIPMENT: Shipment,
    Notification.Kind.ORDER_REFUND: Refund,
    # A parcel's news: the parcel's row (its carrier, tracking, lines and status now).
    Notification.Kind.PARCEL_IN_TRANSIT: Shipment,
    Notification.Kind.PARCEL_OUT_FOR_DELIVERY: Shipment,
    Notification.Kind.PARCEL_DELIVERED: Shipment,
    Notification.Kind.PARCEL_DELIVERY_FAILED: Shipment,
}
_ABOUT_READ = " ".join(
    [
        *(
            f"WHEN '{kind}' THEN (SELECT to_jsonb(s) FROM {model._meta.db_table} s WHERE s.id = n.subject_id)"
            for kind, model in _SUBJECT_ROWS.items()
        ),
        # an invoice's number and total, never its PDF's bytes
        f"WHEN '{Notification.Kind.ORDER_INVOICE}' THEN (SELECT jsonb_build_object('number_text', "
        f"s.number_text, 'total_minor', s.total_minor) FROM {Invoice._meta.db_table} s "
        "WHERE s.id = n.subject_id)",
        f"WHEN '{Notification.Kind.ORDER_CANCELLATION}' THEN (SELECT jsonb_build_object('refunds', "
        "COALESCE(jsonb_agg(to_jsonb(r) ORDER BY r.created_at) FILTER (WHERE r.in_cancellation), "
        "'[]'::jsonb), "
        "'refunded_before', COALESCE(sum(r.amount_minor) FILTER (WHERE NOT r.in_cancellation), 0)) "
        f"FROM {Refund._meta.db_table} r WHERE r.order_id = o.id)",
    ]
)
# And, until the email is rendered, whether a document it carries (an invoice or a credit note:
# documents/attached.py) has no PDF yet: the claim leaves such an email out, and the handler
# renders the PDF with no order locked, then claims it again (handler.py). An email of a kind
# that carries none, and one of an order placed with the short body (it has no invoice, as
# attached.attachments_take says), pays no subquery.
_CARRYING = ", ".join(f"'{kind}'" for kind in sorted(CARRYING_KINDS))
_DOCUMENTS_UNRENDERED_READ = (
    f"CASE WHEN n.email_content_hash = '' AND n.kind IN ({_CARRYING}) AND o.content_version IS NOT NULL "
    "THEN EXISTS (SELECT 1 "
    f"FROM {Invoice._meta.db_table} d WHERE d.order_id = o.id AND d.email_kind = n.kind "
    "AND d.email_subject_id IS NOT DISTINCT FROM n.subject_id AND d.pdf_sha256 = '') END"
)
# And for an order of a connected shop, the shop's fields its emails show (brand and sender).
_SHOP_READ = (
    "(SELECT jsonb_build_object("
    + ", ".join(f"'{name}', sh.{connection.ops.quote_name(name)}" for name in SHOP_EMAIL_FIELDS)
    + f") FROM {Shop._meta.db_table} sh WHERE sh.id = o.shop_id)"
)
_CLAIM_READ = numbered_statement(
    f"""
WITH wanted (position, order_id, kind, subject_id, event_id, inbox_key) AS (
    SELECT * FROM unnest(%(positions)s::int[], %(order_ids)s::uuid[], %(kinds)s::text[],
                         %(subject_ids)s::uuid[], %(event_ids)s::uuid[], %(inbox_keys)s::text[])
)
SELECT w.position, {columns_of(Order, "o")}, {columns_of(Notification, "n")},
       EXISTS (SELECT 1 FROM {ProcessedEvent._meta.db_table} i
                WHERE i.event_id = w.event_id AND i.handler = w.inbox_key),
       {SUPPRESSION_OF_ORDER_SQL},
       (SELECT v.id FROM {EmailTemplateVersion._meta.db_table} v
         WHERE v.kind = w.kind AND v.locale = o.locale
           AND v.published_at IS NOT NULL AND v.retired_at IS NULL LIMIT 1),
       c.state, c.failures, c.retry_at, c.probe_until, c.paused_by,
       f.state, f.failures, f.retry_at, f.probe_until, f.paused_by,
       CASE WHEN n.email_content_hash = '' THEN
           (SELECT ov.content FROM {OrderVersion._meta.db_table} ov
             WHERE ov.order_id = o.id AND ov.number = COALESCE(n.content_version, o.content_version))
       END,
       CASE WHEN n.email_content_hash = '' THEN CASE n.kind {_ABOUT_READ} END END,
       CASE WHEN n.email_content_hash = '' AND o.shop_id IS NOT NULL THEN {_SHOP_READ} END,
       {_DOCUMENTS_UNRENDERED_READ}
  FROM wanted w
  JOIN {Order._meta.db_table} o ON o.id = w.order_id
  JOIN {Notification._meta.db_table} n
    ON n.order_id = o.id AND n.kind = w.kind AND n.subject_id IS NOT DISTINCT FROM w.subject_id
  LEFT JOIN {ProviderCircuit._meta.db_table} c ON c.provider = %(provider)s
  LEFT JOIN {ProviderCircuit._meta.db_table} f ON f.provider = %(fallback)s
 CROSS JOIN {LOCK_WAIT_SET} AS lock_wait
 ORDER BY o.id, n.id
   FOR NO KEY UPDATE OF o, n
"""
)
_ORDER_ATTNAMES = _attnames(Order)
_NOTIFICATION_ATTNAMES = _attnames(Notification)
# from_db takes the values as they are: a JSON column (the snapshot's attachments) comes as text.
_NOTIFICATION_JSON = [isinstance(field, JSONField) for field in Notification._meta.concrete_fields]


@dataclass(frozen=True)
class ClaimKey:
    order_id: uuid.UUID
    kind: str
    event_id: uuid.UUID
    inbox_key: str
    subject_id: uuid.UUID | None = None  # the shipment a shipment's email is about


@dataclass(frozen=True)
class ClaimRead:
    order: Order
    notification: Notification
    processed: bool  # the inbox already has this event
    suppression_id: int | None  # the address's active suppression, as suppression_found takes it
    template_id: int | None  # the live EmailTemplateVersion of the kind in the order's language
    # The providers' circuit breakers by name (no entry: closed)
    circuits: dict[str, CircuitSeen] = field(default_factory=dict)
    # What was bought, in the version the email shows; read only until the email is rendered,
    # and None for an order placed with the short body.
    content: dict[str, Any] | None = None
    # What the email is about beyond the order (its shipment's or refund's row, a cancellation's
    # refunds), until it is rendered: notifications/content/about.py.
    about: dict[str, Any] | None = None
    # The order's connected shop's fields its email shows, until it is rendered; None for an
    # order of no shop.
    shop: dict[str, Any] | None = None
    # A document the email carries has no PDF yet (only read until the email is rendered).
    documents_unrendered: bool = False

    def circuit_of(self, provider: str) -> CircuitSeen:
        return self.circuits.get(provider, CLOSED)


def claim_reads(keys: list[ClaimKey], *, provider: str, fallback: str = "") -> dict[int, ClaimRead]:
    """What each claim reads, by position in `keys`; a position is missing when its order or
    notification does not exist (the caller's slower path tells the two apart). Each
    email (order, kind, subject) must appear once: a second delivery of the same email must read what the
    first one's claim wrote. Must run inside the claim's transaction."""
    with prepared_cursor(numbered=True) as cursor:
        statement_execute(
            cursor,
            _CLAIM_READ,
            {
                "positions": list(range(len(keys))),
                "order_ids": [key.order_id for key in keys],
                "kinds": [key.kind for key in keys],
                "subject_ids": [key.subject_id for key in keys],
                "event_ids": [key.event_id for key in keys],
                "inbox_keys": [key.inbox_key for key in keys],
                "provider": provider,
                "fallback": fallback,
                "lock_wait": lock_wait(),
            },
        )
        rows = cursor.fetchall()
    return {row[0]: _claim_read_of(row[1:], names=(provider, fallback)) for row in rows}


def _claim_read_of(row: tuple[Any, ...], *, names: tuple[str, str]) -> ClaimRead:
    split = len(_ORDER_ATTNAMES)
    end = split + len(_NOTIFICATION_ATTNAMES)
    order = Order.from_db(connection.alias, _ORDER_ATTNAMES, row[:split])
    values = [
        _json(v) if is_json else v for v, is_json in zip(row[split:end], _NOTIFICATION_JSON, strict=True)
    ]
    notification = Notification.from_db(connection.alias, _NOTIFICATION_ATTNAMES, values)
    processed, suppression_id, template_id = row[end : end + 3]
    circuit_columns = (row[end + 3 : end + 8], row[end + 8 : end + 13])
    content, about, shop, documents_unrendered = row[end + 13 :]
    notification.order = order
    circuits = {
        name: CircuitSeen(*columns)
        for name, columns in zip(names, circuit_columns, strict=True)
        if name and columns[0] is not None
    }
    return ClaimRead(
        order,
        notification,
        processed,
        suppression_id=suppression_id,
        template_id=template_id,
        circuits=circuits,
        content=_json(content),
        about=_json(about),
        shop=_json(shop),
        documents_unrendered=bool(documents_unrendered),
    )


def _json(value: Any) -> Any:
    # The connection returns JSON as text: Django's JSONField decodes it, and these are no field.
    return json.loads(value) if isinstance(value, str) else value
