"""The proof of one customer's erasure, as an auditor would check it. Ada's orders come through
the real doors of a web process (the order API with a whole shop order, her Shopify store's
webhooks: an order with lines, a parcel, a refund), a real worker emails them through RabbitMQ
to the mail simulator, the provider refuses one (a reviewer rejects it, audited) and bounces
another hard (her address is suppressed); another customer's order sits beside hers. After
`manage.py customer_erase`, neither her address nor her name nor her street is in any table,
any message of any queue or any log line of the processes that ran; the reconciliation's books
of the day are what they were; her address stays suppressed; the other customer's data stays.
Each search is shown to find what it looks for first, so that it can fail."""

import base64
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from notifications.models import Notification, OperatorAction, ProviderEvent
from notifications.tracking.suppression import suppression_active
from operations.review.services import notification_reject
from orders.models import Order
from privacy.models import Erasure
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create
from tests.factories import staff_user
from tests.integration.privacy.proof_support import (
    ShopOverHttp,
    database_dump,
    day_books,
    dump_hits,
    kinds_found,
    log_texts,
    needles_of,
    provider_webhooks_sent,
    provider_webhooks_to,
    queue_messages_peek,
    text_hits,
)
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until
from tools.drill.processes import ManagedProcess

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues"),
    pytest.mark.long_running,
]
ADDRESS, NAME, STREET = "ada@example.com", "Ada Lovelace", "Unter den Linden"  # as in shopify_payloads
ADA = needles_of(address=ADDRESS, name=NAME, street=STREET)
GRACE = needles_of(address="grace@example.com", name="Grace Hopper", street="Arlington Ridge Road")
MASKED_ADDRESS = "a***@example.com"  # what the logs and dead letters may say instead
SIGNING_KEY = "whsec_" + base64.b64encode(b"the erasure proof's webhook key").decode()
# A reviewer's words quote her, as they do: the erasure must reach them too.
REVIEW_COMMENT = f"{NAME} ({ADDRESS}) phoned: she placed this order twice, do not confirm it"
# Grace's confirmation, and Ada's Shopify confirmation, parcel and refund: each sent, then delivered
# or bounced. Ada's API confirmation was refused: the provider posts nothing about it.
PROVIDER_EVENTS = 8


@dataclass
class Run:
    shop: ShopOverHttp
    worker: ManagedProcess
    run_dir: Path  # where the test's processes write their logs

    def log_paths(self) -> list[Path]:
        return [self.worker.log_path, *sorted(self.run_dir.glob("web*.log"))]


@pytest.fixture
def run(mailsim, start_worker, start_web, api_token, tmp_path) -> Run:
    """The web and a worker as processes of their own, the provider posting its events to the web."""
    tea_house_create()
    worker = start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    web_url = start_web(RESEND_WEBHOOK_SECRET=SIGNING_KEY)
    provider_webhooks_to(mailsim.url, web_url, signing_key=SIGNING_KEY)
    return Run(shop=ShopOverHttp(web_url, api_token, shop_slug="tea-house"), worker=worker, run_dir=tmp_path)


def _api_order(number: str, address: str, name: str, street: str) -> dict:
    place = {"name": name, "line1": f"{street} 1", "postal_code": "10117", "city": "Berlin", "country": "DE"}
    return shop_order_body(
        number=number,
        customer_email=address,
        customer_name=name,
        shipping_address=place,
        billing_address=place,
        payment_method="Credit card, paid",
    )


def _emails_of(order_id, status: str, count: int) -> list[Notification]:
    def found() -> list[Notification] | None:
        emails = list(Notification.objects.filter(order_id=order_id, status=status))
        return emails if len(emails) == count else None

    return wait_until(found, timeout=60, message=f"{count} email(s) of order {order_id} {status}")


def _ada_s_api_order_refused_and_reviewed(run: Run, mailsim) -> None:
    mailsim.set_faults({"kind": "reject", "to_contains": "ada@", "times": 1})
    order_id = run.shop.order_place(_api_order("2001", ADDRESS, NAME, STREET))
    [refused] = _emails_of(order_id, "failed", 1)  # and its message dead-lettered
    reviewer = staff_user("rita", reviewer=True)
    notification_reject(notification=refused, actor=reviewer, comment=REVIEW_COMMENT)
    [audit] = OperatorAction.objects.filter(notification=refused)
    assert (audit.actor_name, audit.result) == ("rita", "rejected; it will not be sent")


def _ada_s_shopify_order_one_email_bounced(run: Run, mailsim) -> None:
    run.shop.shopify_deliver("orders/create", shopify.ORDER, "evt-create")
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    _emails_of(order.id, "sent", 1)
    run.shop.shopify_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-fulfilment")
    _emails_of(order.id, "sent", 2)
    # The refund's email, her last: a hard bounce suppresses the address, and no email is sent after it.
    mailsim.set_faults({"kind": "bounce", "to_contains": "ada@", "times": 1})
    run.shop.shopify_deliver("refunds/create", shopify.REFUND, "evt-refund")
    _emails_of(order.id, "sent", 3)


def _everything_settled(mailsim) -> None:
    """Every provider event posted and applied, the bounce's suppression made: nothing changes
    while the proof reads."""
    wait_until(
        lambda: (
            len(posted := provider_webhooks_sent(mailsim.url)) == PROVIDER_EVENTS
            # "delivered": the simulator's word for a webhook post our web answered with 2xx
            and all(delivery["state"] == "delivered" for delivery in posted)
        ),
        timeout=60,
        message=f"{PROVIDER_EVENTS} provider events posted to the web",
    )
    wait_until(
        lambda: ProviderEvent.objects.filter(applied_at__isnull=False).count() == PROVIDER_EVENTS,
        timeout=60,
        message="every provider event applied by the worker",
    )
    wait_until(lambda: suppression_active(ADDRESS), timeout=30, message="Ada's address suppressed")
    statuses = sorted(Notification.objects.values_list("status", flat=True))
    assert statuses == ["rejected", "sent", "sent", "sent", "sent"], statuses


@pytest.fixture
def ada_s_history(run, mailsim) -> Run:
    """Ada's orders and emails, Grace's beside them, all settled."""
    grace_s = run.shop.order_place(
        _api_order("3001", "grace@example.com", "Grace Hopper", "Arlington Ridge Road")
    )
    _emails_of(grace_s, "sent", 1)
    _ada_s_api_order_refused_and_reviewed(run, mailsim)
    _ada_s_shopify_order_one_email_bounced(run, mailsim)
    _everything_settled(mailsim)
    return run


def test_an_erased_customer_is_in_no_table_queue_or_log_and_the_books_still_add_up(ada_s_history, mailsim):
    run = ada_s_history
    today = timezone.localdate().isoformat()
    books = day_books(today)
    _assert_the_books_hold_both_customers(books)
    assert kinds_found(dump_hits(database_dump(), ADA)) == set(ADA)  # the search finds her while there
    # when
    call_command("customer_erase", ADDRESS, "--yes", "--actor", "dpo")
    # then: in no table, no column
    dump = database_dump()
    hits = dump_hits(dump, ADA)
    assert not hits, "\n".join(hits)
    assert kinds_found(dump_hits(dump, GRACE)) == set(GRACE)  # another customer's data stays
    assert Erasure.objects.get().changed["orders"] == 2
    # and the books of the day are as they were
    assert day_books(today) == books
    # and in no message of any queue
    queues_read, messages_read = _assert_not_in_the_queues()
    # and her address stays suppressed
    _assert_still_suppressed(run, mailsim)
    # and in no log line of the processes that ran
    logs_read, lines_read = _assert_not_in_the_logs(run)
    print(
        f"searched: a dump of {len(dump)} characters, {messages_read} message(s) in {queues_read} "
        f"queue(s), {lines_read} line(s) in {logs_read} log file(s)"
    )


def _assert_the_books_hold_both_customers(books: list[dict]) -> None:
    by_kind = {(row["kind"], row["currency"]): row for row in books}
    confirmations = by_kind["order_confirmation", "EUR"]
    assert (confirmations["accepted"], confirmations["sent"], confirmations["closed"]) == (3, 2, 1)
    assert by_kind["order_shipment", "EUR"]["sent"] == 1
    assert by_kind["order_refund", "EUR"]["sent"] == 1


def _assert_not_in_the_queues() -> tuple[int, int]:
    """How many queues and messages were read."""
    messages = queue_messages_peek()
    assert any(name.endswith(".dlq") for name in messages), sorted(messages)
    texts = {
        f"queue {name}, message {i + 1}": text
        for name, read in messages.items()
        for i, text in enumerate(read)
    }
    # The refused email's message waits in its dead-letter queue, its reason masking the address.
    dead_letters = messages["orders.confirmations.dlq"]
    assert len(dead_letters) == 1, dead_letters
    assert MASKED_ADDRESS in dead_letters[0], dead_letters
    hits = text_hits(texts, ADA)
    assert not hits, f"{len(texts)} message(s) read:\n" + "\n".join(hits)
    return len(messages), len(texts)


def _assert_still_suppressed(run: Run, mailsim) -> None:
    assert suppression_active(ADDRESS) is not None
    accepted_before = len(mailsim.messages())
    order_id = run.shop.order_place(_api_order("2002", ADDRESS.upper(), NAME, STREET))
    [skipped] = _emails_of(order_id, "skipped", 1)
    assert "bounced on" in skipped.last_error, skipped.last_error
    assert len(mailsim.messages()) == accepted_before


def _assert_not_in_the_logs(run: Run) -> tuple[int, int]:
    """How many log files and lines were read."""
    paths = run.log_paths()
    run.worker.stop()  # its last lines written
    assert len(paths) == 2, paths  # the worker's and the web's
    logs = log_texts(paths)
    # The search reads lines about her: the worker logged her refused email, address masked.
    assert MASKED_ADDRESS in logs[run.worker.log_path.name]
    hits = text_hits(logs, ADA)
    assert not hits, "\n".join(hits)
    return len(logs), sum(len(text.splitlines()) for text in logs.values())
