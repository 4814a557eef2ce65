"""A deliberately broken build, so the drill can prove it would catch one.

A catalogue of event types (messaging/registry.py) that routes the email events to
`naive_send` instead of the product's handler: no look at the notification's state or lease,
and a fresh idempotency key each time, so redelivered and republished events become
duplicate emails. The drill's self-test wires it in through its own environment:

    MESSAGING_EVENT_CATALOGUES=orders.events,tools.drill.broken_build

Production refuses any catalogue under tools/ at start-up (config/settings/safety.py).
"""

import dataclasses

from messaging.registry import Guarantee
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.events import EVENT_TYPES as NOTIFICATION_EVENT_TYPES

# Every email event type as the product declares it, but with the naive handler, no batch
# handler (the worker would otherwise hand the deliveries to the product's) and no inbox;
# the other event types of the catalogue (the providers' webhook events) as they are.
# This module is read with the settings, so it imports no models; the handler's module is
# imported when the first event arrives.
EVENT_TYPES = [
    dataclasses.replace(
        event_type,
        handler="tools.drill.naive_send.naive_send",
        batch_handler="",
        guarantee=Guarantee.AT_LEAST_ONCE,
    )
    if event_type.name in EMAIL_KIND_OF_EVENT
    else event_type
    for event_type in NOTIFICATION_EVENT_TYPES
]
