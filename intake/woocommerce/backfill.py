"""What a WooCommerce store's webhooks never delivered, fetched from its REST API and fed to the
same intake as a delivery (`manage.py shop_backfill`).

WooCommerce does not retry a failed delivery and disables a webhook after five failures in a
row, so its orders can be missed. The store's REST API lists the orders modified after a moment
(`GET /wp-json/wc/v3/orders?modified_after=…`, oldest first, a page at a time); each is received
as an `order.updated` whose event key is the order's id with its modification time. Running the
backfill again finds those keys and changes nothing; an order modified since is a new state,
applied as a webhook's would be (and an older one is stale)."""

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import requests

from infra.outbound import OutboundRefused, outbound_get
from intake.receive import delivery_receive
from shops.models import Shop

PAGE_SIZE = 100
TIMEOUT_SECONDS = 30
# A page of 100 orders is well under a megabyte; a store answering more is not read.
MAX_PAGE_BYTES = 16 * 1024 * 1024


class BackfillError(Exception):
    """The store cannot be asked: the message says why, for the person who ran the command."""


@dataclass
class BackfillReport:
    orders: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def count(self, outcome: str) -> None:
        self.orders += 1
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def shop_backfill(
    shop: Shop, *, since: datetime, progress: Callable[[int, int], None] | None = None
) -> BackfillReport:
    """Receive every order modified after `since`; `progress(page, pages)` after each page."""
    if shop.platform != Shop.Platform.WOOCOMMERCE:
        raise BackfillError(
            f"{shop.name} is a {shop.get_platform_display()} shop: the backfill asks WooCommerce."
        )
    if not shop.api_key or not shop.api_secret:
        raise BackfillError(
            f"{shop.name} has no REST API key: add one (read access) on its page in the admin."
        )
    report = BackfillReport()
    for order in _orders_modified_after(shop, since, progress):
        body = json.dumps(order)
        received = delivery_receive(
            shop=shop,
            event_key=f"backfill:{order.get('id')}:{order.get('date_modified_gmt')}",
            webhook_id="backfill",
            topic="order.updated",
            body=body,
        )
        report.count("duplicate" if received.duplicate else received.delivery.outcome)
    return report


def _orders_modified_after(
    shop: Shop, since: datetime, progress: Callable[[int, int], None] | None
) -> Iterator[dict[str, Any]]:
    url = shop.domain.rstrip("/") + "/wp-json/wc/v3/orders"
    page, pages = 1, 1
    while page <= pages:
        params: dict[str, str | int] = {
            "modified_after": since.isoformat(),
            "dates_are_gmt": "true",
            "orderby": "modified",
            "order": "asc",
            "per_page": PAGE_SIZE,
            "page": page,
        }
        try:
            # The store's address is typed by staff: the key goes only to a public https address
            # (in production), and a redirect elsewhere is refused, not followed with the key.
            response = outbound_get(
                url,
                max_bytes=MAX_PAGE_BYTES,
                timeout=(TIMEOUT_SECONDS, TIMEOUT_SECONDS),
                params=params,
                auth=(shop.api_key, shop.api_secret),
            )
        except OutboundRefused as exc:
            raise BackfillError(f"The store was not asked: {exc}") from exc
        except requests.RequestException as exc:
            raise BackfillError(f"The store at {url} cannot be reached: {exc}") from exc
        if response.status_code in (401, 403):
            raise BackfillError(
                f"The store refused the shop's REST API key ({response.status_code}): check it."
            )
        if response.status_code != 200:
            raise BackfillError(f"The store answered {response.status_code} for page {page} of its orders.")
        try:
            orders = json.loads(response.content)
        except ValueError as exc:
            raise BackfillError(f"The store's page {page} of orders is not JSON: {exc}") from exc
        if not isinstance(orders, list):
            raise BackfillError(f"The store's page {page} of orders is not a list.")
        pages = _total_pages(response.headers.get("X-WP-TotalPages", ""), page)
        yield from (order for order in orders if isinstance(order, dict))
        if progress is not None:
            progress(page, pages)
        page += 1


def _total_pages(header: str, page: int) -> int:
    """X-WP-TotalPages as the store says it; this page is the last when it says nothing usable."""
    return int(header) if header.strip().isdigit() else page
