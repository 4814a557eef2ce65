"""The naive baseline most teams write first: insert the order, `.delay()` a task on commit,
the task calls the mail provider and writes `sent`. No outbox (a crash after the commit
loses the email), no confirms, no inbox, no idempotency key (a redelivery sends it twice).
The benchmark runs it beside our pipeline to show the price of the guarantees."""

import time
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING

import requests
from celery import Celery
from django.conf import settings
from django.db import transaction
from django.utils import timezone

if TYPE_CHECKING:
    from notifications.content.render import RenderedEmail
    from tools.bench.naive.models import NaiveOrder

# Celery's defaults, as a team would start with them: no publisher confirms, acks early.
# Comparable settings are kept equal: the broker, JSON, connection reuse, the worker count.
naive_app = Celery("naive")
naive_app.conf.update(
    broker_url=settings.CELERY_BROKER_URL,
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_default_queue="bench.naive",
    worker_hijack_root_logger=False,
    CELERY_DB_REUSE_MAX=settings.CELERY_DB_REUSE_MAX,
)
_session = requests.Session()


@naive_app.task(name="bench.naive_send")
def naive_send(order_id: int) -> None:
    from tools.bench.naive.models import NaiveOrder

    started_at = timezone.now()
    order = NaiveOrder.objects.get(pk=order_id)
    email = _email_render(order)
    calling = time.perf_counter()
    _session.post(
        settings.MAIL_PROVIDER_URL.rstrip("/") + "/emails",
        json={
            "from": settings.MAIL_FROM_ADDRESS,
            "to": [order.customer_email],
            "subject": email.subject,
            "text": email.text,
            "html": email.html,
        },
        headers={"Authorization": f"Bearer {settings.MAIL_PROVIDER_API_KEY}"},
        timeout=(5, 30),
    ).raise_for_status()
    provider_ms = (time.perf_counter() - calling) * 1000
    NaiveOrder.objects.filter(pk=order_id).update(
        status="sent", sent_at=timezone.now(), started_at=started_at, provider_ms=provider_ms
    )


def _email_render(order: "NaiveOrder") -> "RenderedEmail":
    """The same email ours sends, from the same templates: the comparison is of the guarantees,
    not of a shorter body."""
    from notifications.content.snapshot import email_render_for_order
    from orders.models import Order

    same_order = Order(
        customer_email=order.customer_email,
        amount=order.amount,
        currency=order.currency,
        created_at=order.created_at,
        locale=settings.LANGUAGE_CODE,
    )
    rendered, _ = email_render_for_order(kind="order_confirmation", order=same_order, version=None)
    return rendered


def naive_order_create(*, customer_email: str, amount: Decimal | str, currency: str) -> int:
    from tools.bench.naive.models import NaiveOrder

    with transaction.atomic():
        order = NaiveOrder.objects.create(customer_email=customer_email, amount=amount, currency=currency)
        transaction.on_commit(partial(naive_send.delay, order.pk))
    return order.pk
