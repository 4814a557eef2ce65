"""The events the email feature consumes: one customer email per event type, each on its
own work queue, effect-once. Listed in settings MESSAGING_EVENT_CATALOGUES."""

from datetime import timedelta

from messaging.registry import EventType, Guarantee
from orders.events import (
    AGGREGATE,
    EDIT_AGGREGATE,
    INVOICE_AGGREGATE,
    ORDER_CANCELLED,
    ORDER_CREATED,
    ORDER_EDITED,
    ORDER_INVOICED,
    ORDER_REFUNDED,
    ORDER_SHIPPED,
    PARCEL_DELIVERED,
    PARCEL_DELIVERY_FAILED,
    PARCEL_IN_TRANSIT,
    PARCEL_OUT_FOR_DELIVERY,
    REFUND_AGGREGATE,
    SHIPMENT_AGGREGATE,
)

CONFIRMATIONS_QUEUE = "orders.confirmations"
CANCELLATIONS_QUEUE = "orders.cancellations"
SHIPMENTS_QUEUE = "orders.shipments"
REFUNDS_QUEUE = "orders.refunds"
PROVIDER_EVENTS_QUEUE = "notifications.provider_events"

# A delivery event a provider posted to our webhook (stored as a ProviderEvent, its id the
# aggregate id), applied by a worker so the webhook answers fast.
PROVIDER_EVENT_RECEIVED = "mail.provider_event"
PROVIDER_EVENT_AGGREGATE = "provider_event"

# Which email each event type sends (a value of Notification.Kind).
EMAIL_KIND_OF_EVENT = {
    ORDER_CREATED: "order_confirmation",
    ORDER_CANCELLED: "order_cancellation",
    ORDER_SHIPPED: "order_shipment",
    ORDER_REFUNDED: "order_refund",
    ORDER_EDITED: "order_edit",
    ORDER_INVOICED: "order_invoice",
    PARCEL_IN_TRANSIT: "parcel_in_transit",
    PARCEL_OUT_FOR_DELIVERY: "parcel_out_for_delivery",
    PARCEL_DELIVERED: "parcel_delivered",
    PARCEL_DELIVERY_FAILED: "parcel_delivery_failed",
}
# The other way round: a reviewer's "send again" records a new event of the email's own type
# (the registry lets one catalogue consume an event type, so the email is its only consumer).
EVENT_OF_EMAIL_KIND = {kind: event_type for event_type, kind in EMAIL_KIND_OF_EVENT.items()}

# A customer email outlives a provider outage of hours: retried for a day, at most half an
# hour apart, before a person is asked. (Provider events keep the registry's hour: they only
# fail while our own database is away, and the stored event can be applied again.)
EMAIL_RETRY_BUDGET = timedelta(hours=24)
EMAIL_RETRY_MAX_DELAY = timedelta(minutes=30)

# The email exists from the order's commit on (pending), so its status is visible at once.
_CREATE_PENDING = "notifications.services.notification_create_pending_for_event"
_SEND = "notifications.delivery.handler.email_event_handle"
_SEND_BATCH = "notifications.delivery.handler.email_events_handle"
_BATCH_SIZE = "notifications.delivery.handler.email_batch_size"


def _customer_email(name: str, *, aggregate: str, queue: str, inbox_key: str, why: str) -> EventType:
    """An event that is one customer email: sent by the email handler, in batches, its pending
    notification recorded with the event, effect-once, retried for a day."""
    return EventType(
        name=name,
        aggregate=aggregate,
        queue=queue,
        handler=_SEND,
        batch_handler=_SEND_BATCH,
        batch_size=_BATCH_SIZE,
        inbox_key=inbox_key,
        record_hook=_CREATE_PENDING,
        inbox_checked_by_handler=True,  # in the claim's locked read (notifications/delivery/claims.py)
        guarantee=Guarantee.EFFECT_ONCE,
        schema_versions=frozenset({1}),
        retry_budget=EMAIL_RETRY_BUDGET,
        retry_max_delay=EMAIL_RETRY_MAX_DELAY,
        why=why,
    )


EVENT_TYPES = [
    _customer_email(
        ORDER_CREATED,
        aggregate=AGGREGATE,
        queue=CONFIRMATIONS_QUEUE,
        inbox_key="order_confirmation_email",
        why="A customer email: never lost, and a second confirmation would confuse and annoy.",
    ),
    # A change of the order is confirmed as the order was: the confirmations' queue, pool and
    # dead-letter queue.
    _customer_email(
        ORDER_EDITED,
        aggregate=EDIT_AGGREGATE,
        queue=CONFIRMATIONS_QUEUE,
        inbox_key="order_edit_email",
        why="A customer email per change of the order: never lost (the customer must know what they "
        "will get and pay), and a second one would read as a second change.",
    ),
    # An invoice issued after the confirmation (a payment that came later), as the confirmation:
    # its queue, pool and dead-letter queue.
    _customer_email(
        ORDER_INVOICED,
        aggregate=INVOICE_AGGREGATE,
        queue=CONFIRMATIONS_QUEUE,
        inbox_key="order_invoice_email",
        why="A customer email carrying the invoice: never lost (the customer needs it for their "
        "books), and a second one would read as a second invoice.",
    ),
    _customer_email(
        ORDER_CANCELLED,
        aggregate=AGGREGATE,
        queue=CANCELLATIONS_QUEUE,
        inbox_key="order_cancellation_email",
        why="A customer email: never lost, never twice.",
    ),
    _customer_email(
        ORDER_SHIPPED,
        aggregate=SHIPMENT_AGGREGATE,
        queue=SHIPMENTS_QUEUE,
        inbox_key="order_shipment_email",
        why="A customer email per parcel: never lost, and a second one would read as a second parcel.",
    ),
    _customer_email(
        ORDER_REFUNDED,
        aggregate=REFUND_AGGREGATE,
        queue=REFUNDS_QUEUE,
        inbox_key="order_refund_email",
        why="A customer email per refund: never lost, and a second one would read as money sent twice.",
    ),
    # A parcel's news (orders/parcel_progress.py) shares its "shipped" email's queue: the
    # emails of a parcel's journey, one worker pool and dead-letter queue for all of them.
    # "In transit" is recorded only while settings PARCEL_IN_TRANSIT_EMAIL is on.
    _customer_email(
        PARCEL_IN_TRANSIT,
        aggregate=SHIPMENT_AGGREGATE,
        queue=SHIPMENTS_QUEUE,
        inbox_key="parcel_in_transit_email",
        why="A customer email per parcel the shop chose to send: never lost, and a second one would "
        "read as the parcel going round in circles.",
    ),
    _customer_email(
        PARCEL_OUT_FOR_DELIVERY,
        aggregate=SHIPMENT_AGGREGATE,
        queue=SHIPMENTS_QUEUE,
        inbox_key="parcel_out_for_delivery_email",
        why="A customer email per parcel: never lost (the customer waits at home for it), never twice.",
    ),
    _customer_email(
        PARCEL_DELIVERED,
        aggregate=SHIPMENT_AGGREGATE,
        queue=SHIPMENTS_QUEUE,
        inbox_key="parcel_delivered_email",
        why="A customer email per parcel: never lost, and a second one would read as a second parcel.",
    ),
    _customer_email(
        PARCEL_DELIVERY_FAILED,
        aggregate=SHIPMENT_AGGREGATE,
        queue=SHIPMENTS_QUEUE,
        inbox_key="parcel_delivery_failed_email",
        why="A customer email per parcel: never lost (the parcel waits to be fetched), never twice.",
    ),
    EventType(
        name=PROVIDER_EVENT_RECEIVED,
        aggregate=PROVIDER_EVENT_AGGREGATE,
        queue=PROVIDER_EVENTS_QUEUE,
        handler="notifications.tracking.apply.provider_event_handle",
        inbox_key="provider_event_apply",
        guarantee=Guarantee.EFFECT_ONCE,
        schema_versions=frozenset({1}),
        why=(
            "Applying an event twice would change nothing (states only move forward), but it "
            "may settle an unknown outcome with an audit row: one row per settlement."
        ),
    ),
]
