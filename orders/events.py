"""The events the order feature writes, and the one it consumes itself.

The names are the order feature's vocabulary (also the routing keys); who consumes each is
declared by the consumer, in its own catalogue (settings MESSAGING_EVENT_CATALOGUES): the
emails in notifications/events.py, the daily sales figure below.
"""

from messaging.registry import EventType, Guarantee

AGGREGATE = "order"  # the events' subject; its id travels as `order_id`
# A shipment's event is about the shipment (its id travels as `shipment_id`): an order has
# several, and each is its own email.
SHIPMENT_AGGREGATE = "shipment"
REFUND_AGGREGATE = "refund"  # the same for a refund (`refund_id`)

ORDER_CREATED = "order.created"
ORDER_PAID = "order.paid"
ORDER_CANCELLED = "order.cancelled"
ORDER_SHIPPED = "order.shipped"
ORDER_REFUNDED = "order.refunded"
# What the order holds changed after it was placed (orders/edits.py): about the edit.
ORDER_EDITED = "order.edited"
EDIT_AGGREGATE = "order_edit"
# An invoice issued after the order's confirmation (its payment came later): about the invoice,
# which its email carries (orders/invoicing/issue.py).
ORDER_INVOICED = "order.invoiced"
INVOICE_AGGREGATE = "invoice"
# A parcel's news a customer is told of (orders/parcel_progress.py), each about the shipment;
# "in transit" only when settings PARCEL_IN_TRANSIT_EMAIL says so.
PARCEL_IN_TRANSIT = "parcel.in_transit"
PARCEL_OUT_FOR_DELIVERY = "parcel.out_for_delivery"
PARCEL_DELIVERED = "parcel.delivered"
PARCEL_DELIVERY_FAILED = "parcel.delivery_failed"

ANALYTICS_QUEUE = "orders.analytics"

EVENT_TYPES = [
    EventType(
        name=ORDER_PAID,
        aggregate=AGGREGATE,
        queue=ANALYTICS_QUEUE,
        handler="orders.sales.daily_sales_count_handle",
        inbox_key="daily_sales_count",
        guarantee=Guarantee.AT_LEAST_ONCE,
        schema_versions=frozenset({1}),
        # The registry's hour, at most 5 minutes apart: a counter update fails only while our
        # own database is away; a day's figure late by an hour is still a trend.
        why=(
            "A dashboard counter of paid orders per day. A redelivery may count an order twice; "
            "the figure is for watching trends, the orders table stays the record, and an inbox "
            "row per event would double the counter's write cost for nothing a person would notice."
        ),
    ),
]
