"""Attacks on POST /api/orders/<id>/shipments/<shipment id>/events/ (a carrier's news of a
parcel): what it trusts in the body and the path, erasure and cancellation, concurrency under
real web processes, and the worker's path. A test that fails shows a finding; one that passes
documents a defence that held."""

from datetime import timedelta
from functools import partial
from urllib.parse import quote

import pytest
import requests
from django.utils import timezone
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from notifications.delivery.rules import Action, notification_decide
from notifications.models import Notification
from orders.models import Order, Shipment, ShipmentEvent
from tests.at_once import at_once
from tests.shop_order_bodies import SHOP_ORDER, shop_order_body
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db

T0 = timezone.now() - timedelta(days=1)


def _ship(client, order_id, shipment_id: str = "1001-1") -> Shipment:
    shipped = client.post(
        f"/api/orders/{order_id}/shipments/",
        {"shipment_id": shipment_id, "carrier": "DHL", "tracking_number": "0034"},
        format="json",
    )
    assert shipped.status_code == 201, shipped.content
    return Shipment.objects.get(order_id=order_id, shop_shipment_id=shipment_id)


@pytest.fixture
def order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


@pytest.fixture
def parcel(client, order) -> Shipment:
    return _ship(client, order.id)


def _path(parcel: Shipment, shipment_id: str | None = None) -> str:
    return f"/api/orders/{parcel.order_id}/shipments/{shipment_id or parcel.shop_shipment_id}/events/"


def _news(client, parcel: Shipment, event_id: str, status: str, at: str | None = None, **more):
    body = {"event_id": event_id, "status": status, "happened_at": at or T0.isoformat()}
    return client.post(_path(parcel), body | more, format="json")


def _news_emails(order_id) -> list[str]:
    return sorted(
        Notification.objects.filter(order_id=order_id)
        .exclude(kind__in=["order_shipment", "order_confirmation", "order_cancellation"])
        .values_list("kind", flat=True)
    )


# --- what the body's time is trusted with ---------------------------------------------------


@pytest.mark.parametrize("at", ["2026-12-04T08:00:00", "2026-12-04"])
def test_a_time_without_offset_is_a_400_naming_happened_at(client, parcel, at):
    """docs/orders.md: happened_at is "with its offset". A naive time is read as UTC (TIME_ZONE):
    a carrier's local 08:00 in Berlin is kept an hour late, and can silence real news after it."""
    response = _news(client, parcel, "E1", "out_for_delivery", at=at)
    assert response.status_code == 400, response.content
    assert "happened_at" in response.json()["fields"]
    assert not ShipmentEvent.objects.exists()


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("2026-12-04T08:00:00+01:00", "2026-12-04T07:00:00Z"),  # another offset, same instant
        ("2026-12-04T07:00:00Z", "2026-12-04T07:00:00.000000+00:00"),  # zero microseconds
        ("2025-12-31T23:30:00-01:00", "2026-01-01T00:30:00+00:00"),  # across the year's end
        ("2026-03-29T03:30:00+02:00", "2026-03-29T01:30:00+00:00"),  # Berlin's DST switch
    ],
)
def test_the_same_instant_written_otherwise_is_a_replay(client, parcel, first, again):
    assert _news(client, parcel, "E1", "in_transit", at=first).status_code == 201
    replay = _news(client, parcel, "E1", "in_transit", at=again)
    assert replay.status_code == 200, replay.content
    assert ShipmentEvent.objects.count() == 1


@pytest.mark.parametrize(
    "at",
    [
        "0001-01-01T00:30:00+01:00",
        "9999-12-31T23:59:59-01:00",
        "2026-02-30T10:00:00Z",
        "2026-12-04T25:00:00Z",
    ],
)
def test_times_at_the_calendars_edges_are_a_400_never_a_500(client, parcel, at):
    client.raise_request_exception = False
    response = _news(client, parcel, "E1", "delivered", at=at)
    assert response.status_code == 400, response.content
    assert "happened_at" in response.json()["fields"]
    assert not ShipmentEvent.objects.exists()


def test_microseconds_are_kept_and_order_the_news(client, parcel):
    # the carrier's two events one microsecond apart, the later first
    assert _news(client, parcel, "E2", "delivered", at="2026-12-04T08:00:00.000002+00:00").status_code == 201
    assert _news(client, parcel, "E1", "in_transit", at="2026-12-04T08:00:00.000001+00:00").status_code == 201
    assert Shipment.objects.get(pk=parcel.pk).progress == "delivered"


# --- event ids --------------------------------------------------------------------------------


def test_event_ids_in_unicode_replay_and_differ_by_case(client, parcel):
    assert _news(client, parcel, "Évent-ß-東京-🚚", "in_transit").status_code == 201
    assert _news(client, parcel, "Évent-ß-東京-🚚", "in_transit").status_code == 200
    # a case-sensitive id: "e1" and "E1" are two pieces of news, each kept
    assert (
        _news(client, parcel, "E1", "in_transit", at=(T0 + timedelta(minutes=1)).isoformat()).status_code
        == 201
    )
    assert (
        _news(client, parcel, "e1", "in_transit", at=(T0 + timedelta(minutes=2)).isoformat()).status_code
        == 201
    )
    assert ShipmentEvent.objects.count() == 3


def test_an_event_id_with_spaces_around_it_is_the_same_id(client, parcel):
    assert _news(client, parcel, "E1", "out_for_delivery").status_code == 201
    again = _news(client, parcel, "  E1 ", "out_for_delivery")
    assert again.status_code == 200, again.content
    assert _news_emails(parcel.order_id) == ["parcel_out_for_delivery"]


def test_an_event_id_of_64_characters_fits_and_65_do_not(client, parcel):
    assert _news(client, parcel, "E" * 64, "in_transit").status_code == 201
    assert _news(client, parcel, "é" * 65, "in_transit").status_code == 400


# --- the shipment id in the path --------------------------------------------------------------


@pytest.mark.parametrize("shipment_id", ["1001/1", "A?1", "A#1", "50%off", "Ü-東京-1", "a b"])
def test_every_shipment_id_the_shipments_api_takes_can_get_news(client, order, shipment_id):
    """POST /shipments/ takes any visible text up to 64 characters as the shop's id; the news's
    URL must reach each one, percent-encoded."""
    parcel = _ship(client, order.id, shipment_id)
    encoded = quote(shipment_id, safe="")
    response = client.post(
        f"/api/orders/{order.id}/shipments/{encoded}/events/",
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    assert response.status_code == 201, (response.status_code, response.content[:300])
    assert Shipment.objects.get(pk=parcel.pk).progress == "delivered"


@pytest.mark.parametrize("shipment_id", ["a%00b", "%C0%AF", "%FF", "x" * 5000, "1001-1%0A", "1001-1%20"])
def test_strange_shipment_ids_in_the_path_are_refused_never_a_500(client, parcel, shipment_id):
    client.raise_request_exception = False
    response = client.post(
        _path(parcel, shipment_id),
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    assert response.status_code in (404, 409), (response.status_code, response.content[:300])
    assert not ShipmentEvent.objects.exists()


def test_a_shipment_id_differing_only_in_case_is_not_the_parcel(client, order):
    parcel = _ship(client, order.id, "Pk-7")
    response = client.post(
        _path(parcel, "pK-7"),
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["error"] == "shipment_not_found"
    assert not ShipmentEvent.objects.exists()


# --- another client -----------------------------------------------------------------------------


def test_another_client_cannot_learn_a_shipment_id_nor_replay_an_event(client, parcel):
    assert _news(client, parcel, "E1", "out_for_delivery", message="left with neighbour").status_code == 201
    _, other_token = api_token_create(name="another shop")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {other_token}")
    known = _news(other, parcel, "E1", "out_for_delivery", message="left with neighbour")
    unknown = other.post(
        _path(parcel, "no-such-parcel"),
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    assert known.status_code == unknown.status_code == 404
    assert known.json() == unknown.json()
    assert "neighbour" not in known.content.decode()


# --- escaping -------------------------------------------------------------------------------------


def test_markup_in_event_id_and_message_is_text_in_the_api_and_the_admin(client, admin_client, parcel):
    markup = "<img src=x onerror=alert(1)>"
    response = _news(client, parcel, markup[:60], "in_transit", message=markup)
    assert response.status_code == 201, response.content
    assert response.json()["shipments"][0]["events"][0]["message"] == markup  # JSON: data, not markup
    assert response["Content-Type"].startswith("application/json")
    page = admin_client.get(f"/admin/orders/order/{parcel.order_id}/change/").content.decode()
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


# --- the order's version --------------------------------------------------------------------------


def test_news_leaves_the_orders_version_and_a_cancel_with_the_version_seen_before_works(client, parcel):
    before = client.get(f"/api/orders/{parcel.order_id}/").json()["version"]
    assert _news(client, parcel, "E1", "out_for_delivery").status_code == 201
    after = client.get(f"/api/orders/{parcel.order_id}/").json()["version"]
    assert after == before  # news is about the parcel, not the order's content or status
    cancelled = client.post(f"/api/orders/{parcel.order_id}/cancel/", {"version": before}, format="json")
    assert cancelled.status_code == 200, cancelled.content


# --- erasure ----------------------------------------------------------------------------------------


def _erase(client) -> None:
    erased = client.post("/api/customers/erasure/", {"email": SHOP_ORDER["customer_email"]}, format="json")
    assert erased.status_code == 200, erased.content


@pytest.mark.django_db(transaction=True)
def test_the_same_news_sent_again_after_the_erasure_is_refused_as_erased_not_as_other_content(client, parcel):
    """Platforms resend. The erasure blanks the news's fingerprint, so the resend was a 409
    event_id_taken ("other content"), which names the wrong cause: now the erased order's own
    409 order_erased, whatever the news."""
    assert _news(client, parcel, "E1", "delivered", message="left with Mrs Smith").status_code == 201
    _erase(client)
    again = _news(client, parcel, "E1", "delivered", message="left with Mrs Smith")
    assert again.status_code == 409, again.content
    assert again.json()["error"] == "order_erased"


@pytest.mark.django_db(transaction=True)
def test_news_of_an_erased_order_keeps_no_carriers_words(client, parcel):
    """The erasure blanks the carrier's words as personal data; news arriving after it stores them
    again on the erased order (and shows them in the API and the export)."""
    _erase(client)
    response = _news(client, parcel, "E2", "delivered", message="Left with Mrs Smith, 12 Elm St")
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "order_erased"
    assert not ShipmentEvent.objects.exists()


# --- cancellation ---------------------------------------------------------------------------------


def test_news_email_of_an_order_cancelled_before_its_confirmation_is_skipped(client, parcel):
    """The confirmation skipped (cancelled first) skips the parcel's "shipped" email, and that
    skips the parcel's news: the customer never heard of the order."""
    assert _news(client, parcel, "E1", "delivered").status_code == 201
    order = Order.objects.get(pk=parcel.order_id)
    assert client.post(f"/api/orders/{order.id}/cancel/", {}, format="json").status_code == 200
    Notification.objects.filter(order=order, kind="order_confirmation").update(status="skipped")
    Notification.objects.filter(order=order, kind="order_shipment").update(status="skipped")
    order.refresh_from_db()
    email = Notification.objects.get(order=order, kind="parcel_delivered")
    assert notification_decide(notification=email, order=order).action == Action.SKIP


def test_news_email_after_a_shipped_email_a_reviewer_rejected_goes(client, parcel):
    """A reviewer rejected the parcel's "shipped" email: that decision was about that email, not
    the parcel, as a rejected confirmation lets the parcel's email go (docs/email-content.md):
    the news counts it as done and goes. (The attack proposed skipping; decided otherwise, and
    documented.)"""
    assert _news(client, parcel, "E1", "delivered").status_code == 201
    order = Order.objects.get(pk=parcel.order_id)
    Notification.objects.filter(order=order, kind="order_confirmation").update(status="sent")
    Notification.objects.filter(order=order, kind="order_shipment").update(status="rejected")
    email = Notification.objects.get(order=order, kind="parcel_delivered")
    assert notification_decide(notification=email, order=order).action == Action.SEND


# --- concurrency under real web processes ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clean_queues")
def test_news_at_the_same_moment_is_stored_once_and_emails_once(start_web):
    _, token = api_token_create(name="concurrent news")
    url = start_web(workers=3)
    headers = {"Authorization": f"Bearer {token}", "Connection": "close"}

    def post(path: str, body: dict) -> requests.Response:
        return requests.post(f"{url}{path}", json=body, headers=headers, timeout=20)

    for number in ("2001", "2002", "2003"):
        placed = post("/api/orders/", shop_order_body(number=number))
        assert placed.status_code == 201, placed.text
        order_id = placed.json()["id"]
        assert (
            post(f"/api/orders/{order_id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"}).status_code
            == 201
        )
        events = f"/api/orders/{order_id}/shipments/P1/events/"
        same = {"event_id": "E1", "status": "out_for_delivery", "happened_at": T0.isoformat()}
        other_body = same | {"status": "delivered"}
        # the same news three times at once: one 201, two replays
        answers = at_once([partial(post, events, same) for _ in range(3)])
        assert sorted(a.status_code for a in answers) == [200, 200, 201], [a.text[:200] for a in answers]
        # the same id with another body, and two other pieces of news, at once
        later = (T0 + timedelta(minutes=5)).isoformat()
        answers = at_once(
            [
                partial(post, events, other_body),
                partial(post, events, {"event_id": "E2", "status": "delivered", "happened_at": later}),
                partial(post, events, {"event_id": "E3", "status": "delivered", "happened_at": later}),
            ]
        )
        assert sorted(a.status_code for a in answers) == [201, 201, 409], [a.text[:200] for a in answers]
        assert ShipmentEvent.objects.filter(shipment__order_id=order_id).count() == 3
        assert _news_emails(order_id) == ["parcel_delivered", "parcel_out_for_delivery"]
        assert Shipment.objects.get(order_id=order_id).progress == "delivered"


# --- the worker's path ---------------------------------------------------------------------------


def _api(api_token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return api


def _finished(order: Order, count: int) -> list[Notification]:
    def finished():
        emails = list(Notification.objects.filter(order=order, status__in=Notification.DONE_STATUSES))
        return emails if len(emails) == count else None

    return wait_until(finished, timeout=40, message=f"{count} emails of the order finished")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clean_queues")
def test_out_for_delivery_is_told_though_the_parcel_went_back_in_transit_before_its_turn(
    api_token, mailsim, start_worker
):
    """ "Nothing is ever lost": the first "out for delivery" email was skipped because the parcel
    went back to in transit before its turn (the "shipped" email was held), and when the courier
    set out again the news recorded no email (already told): the customer was never told. Now
    only delivery ends a news email: it goes, once, and the second setting out adds none."""
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    api = _api(api_token)
    placed = api.post("/api/orders/", shop_order_body(customer_email="again@example.com"), format="json")
    order = Order.objects.get(id=placed.json()["id"])
    _finished(order, 1)
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "again@", "times": 1})
    assert (
        api.post(
            f"/api/orders/{order.id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"}, format="json"
        ).status_code
        == 201
    )
    events = f"/api/orders/{order.id}/shipments/P1/events/"

    def news(event_id: str, status: str, at: str, **more) -> None:
        body = {"event_id": event_id, "status": status, "happened_at": at} | more
        assert api.post(events, body, format="json").status_code == 201

    news("E1", "out_for_delivery", "2026-12-04T08:00:00+01:00")
    news("E2", "in_transit", "2026-12-04T11:00:00+01:00")  # back at the depot
    emails = {email.kind: email for email in _finished(order, 3)}
    assert emails["parcel_out_for_delivery"].status == "sent"
    # when: the courier sets out again the next morning
    news("E3", "out_for_delivery", "2026-12-05T08:00:00+01:00", message="SECRET-CARRIER-WORDS")
    # then: the customer was told the parcel is out for delivery, once, without the carrier's words
    told = [
        m
        for m in mailsim.messages()
        if m["to"] == ["again@example.com"] and m["subject"].endswith("is out for delivery")
    ]
    assert len(told) == 1
    assert Notification.objects.filter(order=order, kind="parcel_out_for_delivery").count() == 1
    assert not any(
        "SECRET-CARRIER-WORDS" in (m.get("text") or "") + (m.get("html") or "") for m in mailsim.messages()
    )
