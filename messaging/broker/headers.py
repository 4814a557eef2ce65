"""Headers RabbitMQ writes on a delivery (dead-lettering, a quorum queue's delivery count).
They describe one trip of one message: a message published again (a retry, a replay) must
not carry them. RabbitMQ below 4.0.1 treats a message that carries its own x-death through
the same queue again as a dead-letter cycle, and a quorum queue then keeps it (a retry stayed
in celery_delayed_N that way); a stale delivery count would miscount its redeliveries."""

BROKER_DELIVERY_HEADERS = frozenset(
    {
        "x-death",
        "x-first-death-exchange",
        "x-first-death-queue",
        "x-first-death-reason",
        "x-last-death-exchange",
        "x-last-death-queue",
        "x-last-death-reason",
        "x-delivery-count",
    }
)
