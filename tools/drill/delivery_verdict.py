"""The delivery half of the verdict: what the provider's webhooks did, from the simulator's
own delivery log and the database, read with plain SQL.

Every email the simulator accepted posts its events (some twice, in reverse order, under the
drill's webhook faults); each event must be stored once and applied, and every sent email must
end with a delivery state.
"""

from collections import Counter
from dataclasses import dataclass, field

import psycopg
import requests

from tools.drill.sql import one_row


@dataclass
class DeliveryVerdict:
    states: dict[str, int] = field(default_factory=dict)  # sent emails by delivery state
    sent_without_state: int = 0
    webhook_posts: int = 0  # HTTP posts the simulator made (first tries, retries, duplicates)
    webhook_events: int = 0  # distinct events it posted
    webhook_duplicates: int = 0  # events it posted more than once on purpose
    webhooks_given_up: int = 0
    events_stored: int = 0
    events_unapplied: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (
            self.sent_without_state or self.webhooks_given_up or self.events_unapplied or self.problems
        )


def delivery_verdict(database_dsn: str, mailsim_url: str) -> DeliveryVerdict:
    verdict = DeliveryVerdict()
    deliveries = _deliveries(mailsim_url)
    by_event = Counter(delivery["event_id"] for delivery in deliveries)
    verdict.webhook_posts = sum(delivery["attempts"] for delivery in deliveries)
    verdict.webhook_events = len(by_event)
    verdict.webhook_duplicates = sum(n - 1 for n in by_event.values())
    verdict.webhooks_given_up = sum(delivery["state"] == "given_up" for delivery in deliveries)
    with psycopg.connect(database_dsn) as connection:
        states = connection.execute(
            "SELECT delivery_status, count(*) FROM notifications_notification WHERE status = 'sent' "
            "GROUP BY delivery_status"
        ).fetchall()
        stored, unapplied, distinct = one_row(
            connection.execute(
                "SELECT count(*), count(*) FILTER (WHERE applied_at IS NULL), "
                "count(DISTINCT (provider, provider_event_id)) FROM notifications_providerevent"
            )
        )
    verdict.states = {state or "none": count for state, count in states}
    verdict.sent_without_state = verdict.states.get("none", 0)
    verdict.events_stored, verdict.events_unapplied = stored, unapplied
    if stored != distinct:
        verdict.problems.append(f"{stored - distinct} provider events stored more than once")
    if stored != verdict.webhook_events:
        verdict.problems.append(f"the simulator posted {verdict.webhook_events} events, {stored} are stored")
    return verdict


def delivery_settled(database_dsn: str, mailsim_url: str) -> bool:
    """No webhook left to post, every stored event applied, every sent email with a state."""
    if any(delivery["state"] == "pending" for delivery in _deliveries(mailsim_url)):
        return False
    verdict = delivery_verdict(database_dsn, mailsim_url)
    return not (verdict.events_unapplied or verdict.sent_without_state)


def _deliveries(mailsim_url: str) -> list[dict]:
    return requests.get(f"{mailsim_url}/_sim/webhooks", timeout=60).json()["deliveries"]
