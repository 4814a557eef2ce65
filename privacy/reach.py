"""Whose data an erasure or an export reaches, by who asks.

- An operator (the command, the admin's officers): every order placed for the address, and
  everything else held about it: attempts and provider events to it, its suppression (kept as
  its keyed hash), the address wherever words quote it.
- A connected shop's platform (its privacy webhook): that shop's orders, and the address
  wherever words quote it and in its suppression; another shop's orders and their sends stay.
- An API client (its token): the orders its client placed (Order.placed_by_client_of, as every
  other call of the API), and nothing held about the address beyond them: no suppression, no
  other client's orders, sends or erasures may show or change through it, so that another
  client's customer answers exactly as an address nobody knows.
"""

import uuid
from dataclasses import dataclass

from apiauth.models import ApiToken
from infra.addresses import address_forms
from orders.models import OrderQuerySet
from orders.personal_data import orders_of_address
from shops.models import Shop


@dataclass(frozen=True)
class Reach:
    shop: Shop | None = None
    api_token: ApiToken | None = None

    def orders(self, address: str) -> OrderQuerySet:
        orders = orders_of_address(address)
        if self.shop is not None:
            orders = orders.filter(shop=self.shop)
        if self.api_token is not None:
            orders = orders.placed_by_client_of(self.api_token)
        return orders

    def elsewhere(self, address: str) -> list[str]:
        """What rows beyond the orders lose (or, in an export, show) by quoting it: the
        address, in either form of its domain; nothing for an API client."""
        return [] if self.api_token is not None else address_forms(address)

    @property
    def other_sends(self) -> bool:
        """Attempts and provider events to the address for other orders (an operator's only)."""
        return self.shop is None and self.api_token is None

    @property
    def client(self) -> uuid.UUID | None:
        return self.api_token.client if self.api_token is not None else None


EVERYTHING = Reach()
