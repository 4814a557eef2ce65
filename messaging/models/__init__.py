from messaging.models.dead_letters import DeadLetterRecord
from messaging.models.inbox import ProcessedEvent
from messaging.models.outbox import OutboxEvent
from messaging.models.retention import RetentionRun

__all__ = ["DeadLetterRecord", "OutboxEvent", "ProcessedEvent", "RetentionRun"]
