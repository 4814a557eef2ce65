"""`make demo` against the stack of `make run`: a short stream (45 s) with the provider
refusing, bouncing, dropping connections and going down for a while. Afterwards the emails
are in five states (sent, failed, needs review, skipped, rejected), the dead-letter queue holds
the refused ones, and the demo printed where to look. A Shopify and a WooCommerce shop sent their
orders by webhook meanwhile, some deliveries twice and some parcels before their order: each of
their orders is one order here with its confirmation sent, and no delivery is left waiting."""

import subprocess
import sys

import pytest

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Invoice
from tests.broker import queue_ready_count
from tools.drill.processes import REPO, process_env

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues"),
    pytest.mark.tool_check,
]


def test_the_demo_leaves_every_screen_something_to_show(stack, broker, processes_database_url):
    env = process_env(database_url=processes_database_url, broker_url=broker, mail_url=stack["mailsim"])
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.demo",
            "--minutes",
            "0.75",
            "--web",
            stack["web"],
            "--mailsim",
            stack["mailsim"],
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "What to look at" in result.stdout
    assert "the provider answers 503 to everything" in result.stdout
    statuses = set(Notification.objects.values_list("status", flat=True))
    assert {"sent", "failed", "needs_review", "skipped", "rejected"} <= statuses, statuses
    sent_kinds = set(Notification.objects.filter(status="sent").values_list("kind", flat=True))
    assert {
        "order_confirmation",
        "order_cancellation",
        "order_shipment",
        "order_refund",
        "parcel_delivered",
    } <= sent_kinds, sent_kinds
    # every kind of email is there to look at, a parcel's journey included (its "out for delivery"
    # may be skipped as old news when "delivered" came before its turn); "in transit" only where
    # the shop turned it on (PARCEL_IN_TRANSIT_EMAIL), which `make run` leaves off
    assert set(Notification.objects.values_list("kind", flat=True)) == set(Notification.Kind.values) - {
        "parcel_in_transit"
    }
    assert queue_ready_count("orders.confirmations.dlq") > 0
    assert "Shop platforms:" in result.stdout
    for platform in ("shopify", "woocommerce"):
        confirmations = Notification.objects.filter(order__shop__platform=platform, kind="order_confirmation")
        assert confirmations.exists(), platform
        # Their addresses are none the provider refuses: each went out, the outage notwithstanding.
        assert set(confirmations.values_list("status", flat=True)) == {"sent"}, platform
    # invoices of the paid orders with lines and credit notes of refunds, listed with where to see them
    assert Invoice.objects.filter(kind="invoice").exists()
    note = Invoice.objects.filter(kind="credit_note").order_by("-issued_at").first()
    assert note is not None
    assert "Invoices and credit notes" in result.stdout
    assert f"{note.number_text} ({note.series})" in result.stdout
    assert "/admin/orders/invoice/" in result.stdout
    outcomes = set(PlatformDelivery.objects.values_list("outcome", flat=True))
    assert "used" in outcomes
    assert not outcomes & {"waiting", "could_not_use"}, outcomes
