"""A WooCommerce order's parcel news, as the TrackShip for WooCommerce plugin keeps it in the
order's meta. WooCommerce and its Shipment Tracking extension know no carrier status: a store
without TrackShip sends none, and its parcels stay "shipped".

What TrackShip writes, read in its source (trackship/trackship-for-woocommerce,
includes/api/class-trackship-rest-api-controller.php, `tracking_webhook`), for each tracking item
at its index in `_wc_shipment_tracking_items`, then saving the order (an *order.updated*):
- `ts_shipment_status`: `[{"status": …}]`, in every version, with no time;
- `shipment_status`: `[{"status", "status_date", "est_delivery_date", …}]`, in its versions before
  1.6.2 only (later ones keep it in a table of their own); `status_date` is PHP's
  `gmdate('Y-m-d H:i:s')`, the time TrackShip heard the news, in UTC without a zone.

Our WooCommerce parcel is one per order (order.py `_shipments`, its first tracking item), so the
first item's status is its news. Its time is `status_date` when that item says the same status,
else the order's `date_modified_gmt` (TrackShip saves the order as it writes the status). There
is no event id: ours is made of the status and its time, and the news is the parcel's state
(`current_state`), applied only when the parcel's status is another, so every later save of the
order, carrying the same status with a newer time, changes nothing."""

from datetime import UTC, datetime
from typing import Any

from intake.payload_fields import iso_time, objects
from intake.shapes import PlatformParcelNews, Unusable
from orders.models import ParcelStatus
from orders.parcel_progress import happened_at_problem

STATUS_META = "ts_shipment_status"
DATED_STATUS_META = "shipment_status"
# TrackShip's statuses a customer is told of, in our words. Its "failure" is a failed delivery
# attempt; an exception or a return to the sender is a delivery that failed. Any other
# (pre_transit, available_for_pickup, on_hold, unknown, …) is none.
STATUS_OF_TRACKSHIP = {
    "in_transit": ParcelStatus.IN_TRANSIT,
    "out_for_delivery": ParcelStatus.OUT_FOR_DELIVERY,
    "delivered": ParcelStatus.DELIVERED,
    "failure": ParcelStatus.ATTEMPTED_DELIVERY,
    "exception": ParcelStatus.FAILURE,
    "return_to_sender": ParcelStatus.FAILURE,
}


def parcel_news_from_payload(
    payload: dict[str, Any], shipment_id: str, modified_at: datetime
) -> tuple[list[PlatformParcelNews], list[str]]:
    """The news of the order's parcel (`shipment_id`) TrackShip's meta holds, and the reason
    for news left out: (news, left out), each a list of one at most."""
    # A key that is not text is none of TrackShip's (and would not even hash): never the order's hold-up.
    meta = {
        item["key"]: item.get("value")
        for item in objects(payload.get("meta_data"), "meta_data")
        if isinstance(item.get("key"), str)
    }
    dated = _first(meta.get(DATED_STATUS_META))
    status = _first(meta.get(STATUS_META)).get("status") or dated.get("status")
    ours = STATUS_OF_TRACKSHIP.get(status) if isinstance(status, str) else None
    if ours is None:
        return [], []
    try:
        happened_at = modified_at
        if dated.get("status") == status and dated.get("status_date"):
            field = f"meta_data {DATED_STATUS_META}[0].status_date"
            happened_at = iso_time(dated["status_date"], field, naive_is_utc=True)
        problem = happened_at_problem(happened_at)
        event_id = f"trackship:{status}:{happened_at.astimezone(UTC).isoformat()}"
    except (Unusable, OverflowError) as exc:
        problem = str(exc)
    if problem:
        return [], [f"parcel {shipment_id}: its news ({status}) left out: {problem}"]
    news = PlatformParcelNews(
        shipment_id=shipment_id,
        event_id=event_id,
        status=ours.value,
        happened_at=happened_at,
        current_state=True,
    )
    return [news], []


def _first(value: Any) -> dict[str, Any]:
    """The first tracking item's entry of TrackShip's list (PHP may write it as an object keyed
    by the index), {} when there is none."""
    if isinstance(value, dict):
        value = value.get("0")
    elif isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, dict) else {}
