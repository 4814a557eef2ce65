from messaging.models.dead_letters import DeadLetterRecord
from messaging.models.inbox import ProcessedEvent
from messaging.models.outbox import OutboxEvent

__all__ = ["DeadLetterRecord", "OutboxEvent", "ProcessedEvent"]
