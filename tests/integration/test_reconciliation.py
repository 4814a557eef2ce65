"""The reconciliation (issue: "by seed 004"): per day, email kind and currency, the counts and
order amounts accepted against done; every difference a mismatch with an owner from the
reviewers group and a due date, kept as one row across runs, closed by the run when it is
gone or by a person with a comment (audited); the provider's delivery events compared with
our `sent` rows both ways. Real PostgreSQL; the rows are made by the product's own services
(order_create, order_cancel) and brought to the states under test."""

import json
import uuid
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from notifications.models import Notification, OperatorAction, ProviderEvent, ReconcileMismatch
from operations.reconciliation.mismatches import DUE_AFTER, MismatchRefused, mismatch_resolve
from operations.reconciliation.run import reconcile_run
from operations.reviewers import reviewers_group_ensure
from orders.changes import order_cancel, order_pay
from orders.content import ShopOrder
from orders.parcel_progress import ParcelNews, parcel_news_create
from orders.refunds import RefundRequest, order_cancel_with_refund, refund_create
from orders.services import order_create
from orders.shipments import shipment_create
from tests.factories import NotificationFactory, OrderFactory, staff_user
from tests.shop_order_bodies import shop_order_body

# Not transactional: the reviewers group comes from a data migration (a flush removes it).
pytestmark = pytest.mark.django_db
NOW = timedelta(0)  # stuck_after: everything unfinished counts as stuck at once
CONFIRMATION, CANCELLATION = "order_confirmation", "order_cancellation"


@pytest.fixture
def reviewers():
    reviewers_group_ensure()
    return staff_user("rita", reviewer=True), staff_user("sam", reviewer=True)


@pytest.fixture
def shop(django_capture_on_commit_callbacks):
    """One day's orders, each email in another state (the broker is not needed to set them up)."""
    with django_capture_on_commit_callbacks(execute=False):
        sent = _order("10.00", status="sent", sent_at=timezone.now())
        rejected = _order("20.00", status="rejected")
        failed = _order("30.00", failed=True)
        pending = _order("40.00")
        missing = OrderFactory.create(amount="5.00", currency="USD")
        Notification.objects.filter(order=missing).delete()  # as a restore to an earlier point leaves it
        cancelled = OrderFactory.create(amount="1.00")
        order_cancel(order_id=cancelled.id, api_token=cancelled.api_token)
    Notification.objects.filter(order=cancelled, kind=CONFIRMATION).update(status="skipped")
    Notification.objects.filter(order=cancelled, kind=CANCELLATION).update(status="sent")
    return {"sent": sent, "rejected": rejected, "failed": failed, "pending": pending, "missing": missing}


def _order(amount: str, **state) -> Notification:
    return NotificationFactory.create(order__amount=amount, order__currency="EUR", **state)


def _row(ledger, kind, currency):
    [row] = [r for r in ledger if r["kind"] == kind and r["currency"] == currency]
    return row


def test_the_ledger_counts_and_sums_accepted_against_done_per_day_kind_and_currency(shop, reviewers):
    report = reconcile_run(stuck_after=NOW)
    today = timezone.localdate().isoformat()
    eur = _row(report.ledger, CONFIRMATION, "EUR")
    assert eur["day"] == today
    assert (eur["accepted"], eur["accepted_amount"]) == (5, "101.00")
    assert (eur["sent"], eur["sent_amount"]) == (1, "10.00")
    assert (eur["closed"], eur["closed_amount"]) == (2, "21.00")  # rejected 20.00, skipped 1.00
    assert (eur["with_person"], eur["unfinished"], eur["missing"]) == (1, 1, 0)
    assert (eur["done"], eur["done_amount"], eur["open"], eur["open_amount"]) == (3, "31.00", 2, "70.00")
    usd = _row(report.ledger, CONFIRMATION, "USD")
    assert (usd["accepted"], usd["missing"], usd["missing_amount"], usd["open"]) == (1, 1, "5.00", 1)
    cancellation = _row(report.ledger, CANCELLATION, "EUR")
    assert (cancellation["accepted"], cancellation["sent"], cancellation["open"]) == (1, 1, 0)
    assert "7 email(s) expected in 7 days, 3 not done" in report.summary


def test_every_difference_is_a_mismatch_with_an_owner_and_a_due_date(shop, reviewers):
    rita, sam = reviewers
    Notification.objects.filter(pk=shop["failed"].pk).update(owner=sam)  # its reviewer already
    report = reconcile_run(stuck_after=NOW)
    rows = {row.problem: row for row in ReconcileMismatch.objects.filter(resolved_at__isnull=True)}
    assert set(rows) == {"missing_email", "stuck", "waiting_for_person"}
    assert rows["missing_email"].order_id == shop["missing"].id
    assert rows["missing_email"].amount == Decimal("5.00")
    assert rows["missing_email"].currency == "USD"
    assert rows["stuck"].notification_id == shop["pending"].pk
    assert rows["waiting_for_person"].owner == sam
    # new ones go to the least loaded reviewer: rita first (lower id on a tie), then sam
    assert [rows["missing_email"].owner, rows["stuck"].owner] == [rita, sam]
    assert all(row.due_at == report.started_at + DUE_AFTER for row in rows.values())
    # the ledger's difference is the mismatches, email for email
    assert sum(row["open"] for row in report.ledger) == len(rows)


def test_a_mismatch_found_again_stays_one_row_and_closes_itself_when_it_is_gone(shop, reviewers):
    reconcile_run(stuck_after=NOW)
    first = {row.problem: row.pk for row in ReconcileMismatch.objects.all()}
    second = reconcile_run(stuck_after=NOW)
    assert {row.problem: row.pk for row in ReconcileMismatch.objects.all()} == first
    assert ReconcileMismatch.objects.get(problem="stuck").report == second
    # the stuck email is sent after all
    Notification.objects.filter(pk=shop["pending"].pk).update(status="sent", sent_at=timezone.now())
    third = reconcile_run(stuck_after=NOW)
    stuck = ReconcileMismatch.objects.get(problem="stuck")
    assert stuck.resolved_at == third.started_at
    assert stuck.resolved_by is None
    assert stuck.resolution == f"No longer found by reconcile report {third.pk} (the email is sent)."
    assert "0 new mismatch(es), 2 still open, 1 closed" in third.summary


def test_a_person_closes_a_mismatch_with_a_comment_audited_and_it_is_not_opened_again(shop, reviewers):
    rita, _ = reviewers
    reconcile_run(stuck_after=NOW)
    missing = ReconcileMismatch.objects.get(problem="missing_email")
    with pytest.raises(MismatchRefused, match="Write what you checked"):
        mismatch_resolve(mismatch_id=missing.pk, actor=rita, comment="ok")
    mismatch_resolve(mismatch_id=missing.pk, actor=rita, comment="A test order from the shop's own staff")
    missing.refresh_from_db()
    assert (missing.resolved_by, missing.resolution) == (rita, "A test order from the shop's own staff")
    action = OperatorAction.objects.get(action="resolve_mismatch")
    assert action.actor == rita
    assert action.comment == "A test order from the shop's own staff"
    with pytest.raises(MismatchRefused, match="already closed"):
        mismatch_resolve(mismatch_id=missing.pk, actor=rita, comment="closing it twice")
    reconcile_run(stuck_after=NOW)  # still missing, but accepted by a person
    assert ReconcileMismatch.objects.filter(problem="missing_email").count() == 1


def test_without_reviewers_the_mismatches_have_no_owner_and_the_summary_says_so(shop):
    reviewers_group_ensure().user_set.clear()
    report = reconcile_run(stuck_after=NOW)
    assert not ReconcileMismatch.objects.filter(owner__isnull=False).exists()
    assert "3 without an owner: add people to the Notification reviewers group" in report.summary


def _provider_event(kind: str, *, notification=None, key: str = "", hours_ago: float = 2) -> ProviderEvent:
    event = ProviderEvent.objects.create(
        id=uuid.uuid4(),
        provider="resend",
        provider_event_id=f"evt_{uuid.uuid4().hex}",
        kind=kind,
        occurred_at=timezone.now() - timedelta(hours=hours_ago),
        idempotency_key=key or (notification.idempotency_key if notification else ""),
        payload={},
        notification=notification,
    )
    ProviderEvent.objects.filter(pk=event.pk).update(received_at=event.occurred_at)
    return event


def test_the_providers_events_are_compared_with_our_sent_rows_both_ways(
    django_capture_on_commit_callbacks, reviewers
):
    two_hours_ago = timezone.now() - timedelta(hours=2)
    with django_capture_on_commit_callbacks(execute=False):
        silent, spoken, spoken_of_before = (
            NotificationFactory.create(status="sent", sent_at=two_hours_ago, provider="resend")
            for _ in range(3)
        )
        rejected = NotificationFactory.create(status="rejected", provider="resend")
        just_sent = NotificationFactory.create(status="sent", sent_at=timezone.now(), provider="resend")
    _provider_event("delivered", notification=spoken)
    # an event about the send under a key a reviewer replaced is no evidence of the send since
    _provider_event("bounced", notification=spoken_of_before, key="order_confirmation:retired-v1")
    _provider_event("sent", notification=rejected)
    _provider_event("delivered", notification=rejected)  # two events, one mismatch
    unknown = _provider_event("delivered", key="k-nobody-has")
    _provider_event("delivered", key="test-a-test-email")  # manage.py send_test_email's: ignored
    reconcile_run(stuck_after=timedelta(hours=1))
    found = {
        (row.problem, row.notification_id or row.provider_event_id) for row in ReconcileMismatch.objects.all()
    }
    assert found == {
        ("no_provider_evidence", silent.pk),  # not `spoken` (it has its event), not `just_sent` (too soon)
        ("no_provider_evidence", spoken_of_before.pk),
        ("provider_sent_unsent", rejected.pk),
        ("provider_unknown_key", unknown.pk),
    }
    assert just_sent.pk not in {n for _, n in found}


def test_the_command_prints_the_ledger_and_its_json_has_the_open_mismatches(shop, reviewers):
    out = StringIO()
    call_command("reconcile", "--stuck-after", "0m", stdout=out)
    text = out.getvalue()
    assert "DAY" in text
    assert "NOT DONE" in text
    assert f"{timezone.localdate().isoformat()}  order_confirmation  EUR" in text
    out = StringIO()
    call_command("reconcile", "--stuck-after", "0m", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert {row["problem"] for row in result["open_mismatches"]} == {
        "missing_email",
        "stuck",
        "waiting_for_person",
    }
    assert {row["owner"] for row in result["open_mismatches"]} <= {"rita", "sam"}
    assert _row(result["ledger"], CONFIRMATION, "USD")["missing"] == 1


CHANGELIST = "/admin/notifications/reconcilemismatch/"


def test_reviewers_see_and_close_mismatches_in_the_admin_and_others_may_not(client, shop, reviewers):
    rita, _ = reviewers
    report = reconcile_run(stuck_after=NOW)
    client.force_login(rita)
    page = client.get(f"/admin/notifications/reconcilereport/{report.pk}/change/").content.decode()
    assert "reconcile-ledger" in page
    assert "101.00" in page
    assert "70.00" in page
    listing = client.get(CHANGELIST, {"state": "open"}).content.decode()
    assert "accepted order without its email" in listing
    assert "(overdue)" not in listing
    missing = ReconcileMismatch.objects.get(problem="missing_email")
    response = client.post(
        CHANGELIST,
        {
            "action": "close_with_comment",
            "_selected_action": [missing.pk],
            "index": 0,
            "comment": "Entered again by hand",
        },
        follow=True,
    )
    assert "1 mismatch(es) closed." in response.content.decode()
    assert ReconcileMismatch.objects.get(pk=missing.pk).resolved_by == rita
    ReconcileMismatch.objects.filter(resolved_at__isnull=True).update(
        due_at=timezone.now() - timedelta(hours=1)
    )
    assert "(overdue)" in client.get(CHANGELIST, {"state": "overdue"}).content.decode()
    client.force_login(staff_user("victor", reviewer=False))
    assert client.get(CHANGELIST).status_code == 403


def test_closing_more_mismatches_than_an_action_takes_is_refused_whole(client, shop, reviewers, settings):
    # given more open mismatches than the cap
    settings.REVIEW_ACTION_MAX_NOTIFICATIONS = 2
    reconcile_run(stuck_after=NOW)
    open_before = ReconcileMismatch.objects.filter(resolved_at__isnull=True).count()
    assert open_before > 2
    client.force_login(reviewers[0])
    # when a reviewer closes "select all"
    any_one = ReconcileMismatch.objects.all()[0]
    response = client.post(
        CHANGELIST,
        {
            "action": "close_with_comment",
            "select_across": "1",
            "_selected_action": [any_one.pk],
            "index": 0,
            "comment": "checked",
        },
        follow=True,
    )
    # then none is closed, and the page says why
    page = response.content.decode()
    assert f"Nothing done: {open_before} mismatches are selected" in page
    assert "at most 2 at a time" in page
    assert ReconcileMismatch.objects.filter(resolved_at__isnull=True).count() == open_before


def test_parcels_and_refunds_are_counted_and_summed_per_kind_and_a_missing_email_is_found(
    reviewers, django_capture_on_commit_callbacks
):
    # given a shop's paid order with a parcel whose email was lost, a refund emailed, and a refund
    # told by the cancellation (it expects no email of its own)
    with django_capture_on_commit_callbacks(execute=False):
        shop_order = ShopOrder(shop_order_body(customer_email="parts@example.com"))
        order = order_create(
            customer_email="parts@example.com",
            amount=shop_order.amount,
            currency="EUR",
            shop_order=shop_order,
        )
        order_pay(order_id=order.id, api_token=None)
        parcel = shipment_create(
            order_id=order.id, api_token=None, shop_shipment_id="P1", carrier="DHL"
        ).shipment
        refund_create(order_id=order.id, api_token=None, request=RefundRequest("R1", amount_minor=1250))
        order_cancel_with_refund(
            order_id=order.id, api_token=None, refund=RefundRequest("C1", amount_minor=2230)
        )
    Notification.objects.filter(kind="order_shipment", subject_id=parcel.id).delete()
    Notification.objects.filter(order=order, kind="order_refund").update(
        status="sent", sent_at=timezone.now()
    )
    # when
    report = reconcile_run(stuck_after=NOW)
    # then
    parcels = _row(report.ledger, "order_shipment", "EUR")
    assert (parcels["accepted"], parcels["missing"], parcels["open"]) == (1, 1, 1)
    refunds = _row(report.ledger, "order_refund", "EUR")
    assert (refunds["accepted"], refunds["accepted_amount"], refunds["sent"], refunds["sent_amount"]) == (
        1,
        "12.50",
        1,
        "12.50",
    )
    assert refunds["open"] == 0
    [missing] = ReconcileMismatch.objects.filter(problem="missing_email", kind="order_shipment")
    assert missing.subject == f"{parcel.id}:order_shipment"
    assert missing.order_id == order.id
    assert "has no order_shipment email" in missing.detail


def test_a_parcels_news_emails_are_counted_per_kind_and_a_lost_one_is_found(
    reviewers, django_capture_on_commit_callbacks
):
    # given a parcel out for delivery, then delivered, whose "delivered" email was lost
    with django_capture_on_commit_callbacks(execute=False):
        shop_order = ShopOrder(shop_order_body(customer_email="news@example.com"))
        order = order_create(
            customer_email="news@example.com", amount=shop_order.amount, currency="EUR", shop_order=shop_order
        )
        parcel = shipment_create(
            order_id=order.id, api_token=None, shop_shipment_id="P1", carrier="DHL"
        ).shipment
        for event_id, status, minute in (("E1", "out_for_delivery", 0), ("E2", "delivered", 90)):
            news = ParcelNews(event_id, status, timezone.now() - timedelta(hours=3, minutes=-minute))
            parcel_news_create(order_id=order.id, api_token=None, shop_shipment_id="P1", news=news)
    Notification.objects.filter(kind="parcel_delivered", subject_id=parcel.id).delete()
    # when
    report = reconcile_run(stuck_after=NOW)
    # then each kind has its row: the one still on its way, the lost one missing
    out = _row(report.ledger, "parcel_out_for_delivery", "EUR")
    assert (out["accepted"], out["missing"]) == (1, 0)
    delivered = _row(report.ledger, "parcel_delivered", "EUR")
    assert (delivered["accepted"], delivered["missing"], delivered["open"]) == (1, 1, 1)
    [missing] = ReconcileMismatch.objects.filter(problem="missing_email", kind="parcel_delivered")
    assert missing.subject == f"{parcel.id}:parcel_delivered"
    assert missing.order_id == order.id
