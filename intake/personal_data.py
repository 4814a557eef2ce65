"""A customer's erasure, on what the shops' platforms sent about them: each delivery's body
(the platform's whole order: addresses, names, lines) of the customer's orders, and any other
delivery whose body quotes the address or name (one waiting for its order, one that could not
be used, a platform's privacy request). What stays: which delivery came, when, for which
platform order, and what it did, so the intake's history still shows each event stored once.
Called by the erasure through PERSONAL_DATA_ERASURE_STEPS (privacy/erasure.py)."""

from datetime import datetime

from django.db.models import Q

from infra.text_scrub import text_quotes, text_scrubbed
from intake.models import PlatformDelivery


def deliveries_erase(*, order_ids: list, address: str, words: list[str], now: datetime) -> dict[str, int]:
    deliveries = PlatformDelivery.objects.filter(
        Q(order_id__in=order_ids) | text_quotes("body", words) | text_quotes("reason", words)
    ).exclude(body="")
    return {"platform_deliveries": deliveries.update(body="", reason=text_scrubbed("reason", words))}
