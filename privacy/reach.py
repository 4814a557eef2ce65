"""Whose data an erasure or an export reaches, by who asks.

- An operator (the command, the admin's officers): every order placed for the address, and
  everything else held about it: attempts and provider events to it, its suppression (kept as
  its keyed hash), the address wherever words quote it.
- A connected shop's platform (its privacy webhook): that shop's orders, the address in that
  shop's deliveries, and its suppression (kept as its keyed hash, which suppresses as well);
  nothing of another shop (its orders, their sends, its deliveries) and no row that belongs to
  no shop (people's and tasks' words, the admin's history) beyond the rows of its own orders:
  a shop signs its own requests, so it may name anybody's address. Its request reaches the
  orders placed up to when it was received (and those it names): a customer who orders again
  afterwards has not asked about that order, and a request sent again later reaches no more.
- An API client (its token): the orders its client placed (Order.placed_by_client_of, as every
  other call of the API), and nothing held about the address beyond them: no suppression, no
  other client's orders, sends or erasures may show or change through it, so that another
  client's customer answers exactly as an address nobody knows.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from apiauth.models import ApiToken
from infra.addresses import address_forms
from orders.models import OrderQuerySet
from orders.personal_data import orders_of_address
from shops.models import Shop


@dataclass(frozen=True)
class Reach:
    shop: Shop | None = None
    api_token: ApiToken | None = None
    # A shop's request: when it was received, and the platform's ids of the orders it names.
    received_at: datetime | None = None
    orders_named: frozenset[str] = frozenset()

    def orders(self, address: str) -> OrderQuerySet:
        return self.within(orders_of_address(address))

    def within(self, orders: OrderQuerySet) -> OrderQuerySet:
        """Those of `orders` it reaches, whoever they are of."""
        if self.shop is not None:
            orders = orders.filter(shop=self.shop)
        if self.received_at is not None:
            orders = orders.filter(
                Q(created_at__lte=self.received_at) | Q(platform_order_id__in=self.orders_named)
            )
        if self.api_token is not None:
            orders = orders.placed_by_client_of(self.api_token)
        return orders

    def elsewhere(self, address: str) -> list[str]:
        """What rows beyond the orders lose (or, in an export, show) by quoting it: the
        address, in either form of its domain; nothing for an API client. A shop's reach
        beyond its orders is its own deliveries (intake/personal_data.py) and the suppression."""
        return [] if self.api_token is not None else address_forms(address)

    def shared(self, address: str) -> list[str]:
        """What rows that belong to no shop or client lose by quoting it, beyond the rows of the
        orders (people's and providers' words, dead letters, task results, the admin's history,
        corrections of other orders): the address for an operator alone."""
        return address_forms(address) if self.other_sends else []

    @property
    def suppression(self) -> bool:
        """The address's suppression keeps its keyed hash alone (an operator's, a shop's)."""
        return self.api_token is None

    @property
    def other_sends(self) -> bool:
        """Attempts and provider events to the address for other orders (an operator's only)."""
        return self.shop is None and self.api_token is None

    @property
    def client(self) -> uuid.UUID | None:
        return self.api_token.client if self.api_token is not None else None


EVERYTHING = Reach()
