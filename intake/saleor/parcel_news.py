"""A Saleor fulfillment's parcel news, by a convention of this service: Saleor knows no carrier
status (a fulfillment's `status` is FULFILLED, CANCELED, RETURNED…, never where the parcel is),
so a shop, or its shipping app, that has the carrier's news writes it in the fulfillment's
public metadata (Saleor's `updateMetadata` mutation, on the fulfillment's id):

- `parcel_status`: one of our statuses (orders.parcel_progress.REPORTED_STATUSES), as they are
  written; any other value is no news;
- `parcel_status_at`: when it happened, an ISO 8601 time with its offset
  (`2026-03-04T07:12:00Z`).

Saleor then sends FULFILLMENT_METADATA_UPDATED, whose order this service's query selects like
every event's (subscription.py), and every later event of the order carries it again. There is
no event id: ours is made of the status and its time, so the same news carried again changes
nothing, and a new time is new news."""

from datetime import UTC
from typing import Any

from intake.payload_fields import iso_time, objects, required, text
from intake.shapes import PlatformParcelNews, Unusable
from orders.content import SHORT_TEXT
from orders.parcel_progress import REPORTED_STATUSES, happened_at_problem

STATUS_KEY = "parcel_status"
TIME_KEY = "parcel_status_at"


def parcel_news_from_fulfillments(
    fulfillments: list[dict[str, Any]],
) -> tuple[list[PlatformParcelNews], list[str]]:
    """The news each fulfillment's metadata holds, and the reasons for news left out."""
    news: list[PlatformParcelNews] = []
    left_out: list[str] = []
    for fulfillment in fulfillments:
        metadata = {  # a key that is not text is none of ours, and would not even hash
            item["key"]: item.get("value")
            for item in objects(fulfillment.get("metadata"), "fulfillments[].metadata")
            if isinstance(item.get("key"), str)
        }
        status = metadata.get(STATUS_KEY)
        if status not in REPORTED_STATUSES:
            continue
        shipment_id = text(required(fulfillment, "id"), SHORT_TEXT, "fulfillments[].id")
        try:
            if not metadata.get(TIME_KEY):
                raise Unusable(f"the fulfillment's metadata has {STATUS_KEY} but no {TIME_KEY}.")
            happened_at = iso_time(metadata[TIME_KEY], f"fulfillments[].metadata {TIME_KEY}")
            problem = happened_at_problem(happened_at)
            event_id = f"metadata:{status}:{happened_at.astimezone(UTC).isoformat()}"
        except (Unusable, OverflowError) as exc:
            problem = str(exc)
        if problem:
            left_out.append(f"parcel {shipment_id}: its news ({status}) left out: {problem}")
            continue
        news.append(PlatformParcelNews(shipment_id, event_id, str(status), happened_at))
    return news, left_out
