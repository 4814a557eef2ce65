"""Saleor's parcel news, by this service's convention: a fulfillment's public metadata
`parcel_status` and `parcel_status_at` (intake/saleor/parcel_news.py), carried in the order every
event brings, FULFILLMENT_METADATA_UPDATED's included, and posted through the real webhook view
signed as Saleor signs: applied after the order's parcels, once, the same news carried again by
later events changing nothing, news that cannot be taken left out with its reason."""

import copy
from datetime import UTC, datetime

import pytest

from intake.models import PlatformDelivery
from intake.saleor.subscription import SUBSCRIPTION_QUERY
from notifications.models import Notification
from orders.models import Shipment, ShipmentEvent
from tests import saleor_payloads as saleor

pytestmark = pytest.mark.django_db
TEA = saleor.global_id("Fulfillment", 1)


def _fulfilled(
    metadata: dict[str, str] | None = None, *, updated_at: str = "2026-12-01T09:00:00+00:00"
) -> dict:
    """The order fulfilled in one parcel, its fulfillment's metadata as given."""
    tea = saleor.fulfillment(
        1, [(saleor.LINE_TEA, "TEA-GREEN", 2), (saleor.LINE_POT, None, 1)], metadata=metadata
    )
    return saleor.order(status="FULFILLED", updatedAt=updated_at, fulfillments=[tea])


def _news(status: str, at: str) -> dict[str, str]:
    return {"parcel_status": status, "parcel_status_at": at}


def _news_emails() -> list[str]:
    return sorted(Notification.objects.filter(kind__startswith="parcel_").values_list("kind", flat=True))


def _latest_reason() -> str:
    return PlatformDelivery.objects.latest("received_at").reason


def test_the_query_selects_the_fulfillments_metadata_and_its_event():
    assert "metadata { key value }" in SUBSCRIPTION_QUERY
    assert "... on FulfillmentMetadataUpdated { order { ...OrderForEmails } }" in SUBSCRIPTION_QUERY


def test_news_in_the_delivery_that_fulfils_the_order_is_applied_after_its_parcel(saleor_deliver):
    # given
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # when: the parcel is new and its metadata already says out for delivery
    fulfilled = _fulfilled(_news("out_for_delivery", "2026-12-01T08:12:00+01:00"))
    assert saleor_deliver("order_fulfilled", saleor.event("OrderFulfilled", fulfilled)) == "used"
    # then
    assert Shipment.objects.get().progress == "out_for_delivery"
    news = ShipmentEvent.objects.get()
    assert news.happened_at == datetime(2026, 12, 1, 7, 12, tzinfo=UTC)
    assert news.shop_event_id == "metadata:out_for_delivery:2026-12-01T07:12:00+00:00"
    assert _news_emails() == ["parcel_out_for_delivery"]
    assert f"parcel {TEA}: out for delivery recorded (email parcel.out_for_delivery)" in _latest_reason()


def test_metadata_updated_is_news_once_and_later_events_carrying_it_change_nothing(saleor_deliver):
    # given: the order fulfilled, no news yet
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    saleor_deliver("order_fulfilled", saleor.event("OrderFulfilled", _fulfilled()))
    # when: the shipping app writes "in transit", then "delivered" (the order's updatedAt unchanged)
    in_transit = _fulfilled(_news("in_transit", "2026-12-01T12:00:00Z"))
    saleor_deliver("fulfillment_metadata_updated", saleor.event("FulfillmentMetadataUpdated", in_transit))
    assert (Shipment.objects.get().progress, _news_emails()) == ("in_transit", [])
    delivered = _fulfilled(_news("delivered", "2026-12-02T13:40:00Z"))
    event = saleor.event("FulfillmentMetadataUpdated", delivered, issued_at="2026-12-02T13:41:00+00:00")
    assert saleor_deliver("fulfillment_metadata_updated", event) == "used"
    # and: a refund later, its order carrying the same metadata
    refunded = copy.deepcopy(delivered) | {"updatedAt": "2026-12-03T10:00:00+00:00"}
    refunded["transactions"][0]["events"].append(saleor.refund_event(502, 12.9))
    assert saleor_deliver("order_refunded", saleor.event("OrderRefunded", refunded)) == "used"
    # then
    assert list(ShipmentEvent.objects.values_list("status", flat=True)) == ["in_transit", "delivered"]
    assert Shipment.objects.get().progress == "delivered"
    assert _news_emails() == ["parcel_delivered"]
    assert "refund" in _latest_reason()
    assert "delivered recorded" not in _latest_reason()


@pytest.mark.parametrize("status", ["picked_up", "shipped", "DELIVERED", ""])
def test_a_status_not_of_the_convention_is_no_news(saleor_deliver, status):
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    fulfilled = _fulfilled(_news(status, "2026-12-01T12:00:00Z"))
    assert saleor_deliver("order_fulfilled", saleor.event("OrderFulfilled", fulfilled)) == "used"
    assert not ShipmentEvent.objects.exists()
    assert Shipment.objects.get().progress == "shipped"


@pytest.mark.parametrize(
    ("metadata", "why"),
    [
        ({"parcel_status": "delivered"}, "has parcel_status but no parcel_status_at"),
        (_news("delivered", "2026-12-02T13:40:00"), "names no time zone"),
        (_news("delivered", "yesterday"), "is not an ISO 8601 time"),
        (_news("delivered", "2099-01-01T00:00:00Z"), "after our clock"),
    ],
)
def test_news_whose_time_cannot_be_taken_is_left_out_with_the_reason_and_the_order_applied(
    saleor_deliver, metadata, why
):
    # given
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    # when
    assert saleor_deliver("order_fulfilled", saleor.event("OrderFulfilled", _fulfilled(metadata))) == "used"
    # then: the parcel is recorded, its "shipped" email too; the news is not
    reason = _latest_reason()
    assert f"parcel {TEA}: its news (delivered) left out:" in reason
    assert why in reason, reason
    assert Shipment.objects.get().progress == "shipped"
    assert Notification.objects.filter(kind="order_shipment").count() == 1
    assert not ShipmentEvent.objects.exists()
