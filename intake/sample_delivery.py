"""The admin's "Send a test delivery": a sample order, signed with the shop's secret as its
platform signs (intake/samples.py), through the same checks and the same intake as a real
delivery. Its emails go to the person who asked, as a customer would receive them; what was done
is audited."""

import json
import random
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpHeaders

from intake.platforms import platform_of
from intake.receive import Received, delivery_receive
from intake.samples import SampleDelivery
from intake.verification import Refused
from notifications.audit import action_done
from notifications.models import OperatorAction
from shops.models import Shop


class SampleRefused(Exception):
    """The intake refused the sample (the shop cannot verify its own deliveries): why, in words."""


def sample_order(shop: Shop, *, address: str) -> tuple[str, dict[str, Any]]:
    """The topic and payload of a new, paid sample order of the shop's platform."""
    sample = _sample_of(shop)
    return sample.topic, sample.payload_of(random.randint(10**11, 10**12 - 1), address, datetime.now(UTC))


def sample_delivery_send(shop: Shop, *, address: str, actor: User | None, actor_name: str) -> Received:
    topic, payload = sample_order(shop, address=address)
    body = json.dumps(payload).encode()
    headers = _sample_of(shop).headers_of(shop, topic, body)
    # As Django's request.META names them, which HttpHeaders reads.
    meta = {f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()}
    verdict = platform_of(shop).delivery_verify(shop, HttpHeaders(meta), body)
    if isinstance(verdict, Refused):
        raise SampleRefused(verdict.detail)
    received = delivery_receive(
        shop=shop, event_key=verdict.event_key, webhook_id="test", topic=verdict.topic, body=body.decode()
    )
    action_done(
        action=OperatorAction.Action.TEST_SEND,
        actor=actor,
        actor_name=actor_name,
        comment=f"a test delivery of {shop.slug} ({topic}, order {payload['id']})",
        result=received.delivery.outcome,
    )
    return received


def _sample_of(shop: Shop) -> SampleDelivery:
    sample = platform_of(shop).sample
    if sample is None:
        raise SampleRefused(
            f"{shop.get_platform_display()} signs its deliveries with a key this service never holds: "
            "no sample can be signed here."
        )
    return sample
