"""Everything held about one customer, by their address (GDPR art. 15 and 20): one JSON
document a person can read (the names of its fields are words), made on request and sent
nowhere by this service: the person who asked hands it over.

Each feature writes its own part (orders/personal_data.py, notifications/personal_data.py,
the features above this one through PERSONAL_DATA_EXPORT_STEPS); the document ends with the
erasures already done for the address, so an export after an erasure says why it is empty.
"""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.module_loading import import_string

from apiauth.models import ApiToken
from infra.keyed_hash import address_hash
from notifications.personal_data import notifications_export
from orders.personal_data import orders_export
from privacy.erasure import AddressRefused, address_checked, erasures_of
from privacy.models import Export
from privacy.reach import Reach


def customer_export(
    address: str,
    *,
    via: str | None = None,
    actor: User | None = None,
    actor_name: str = "",
    api_token: ApiToken | None = None,
) -> dict[str, Any]:
    """The document; AddressRefused (the same refusal) for what is not an address. `via`: it
    is handed out (the command, the API, the admin's download), and recorded (Export).
    `api_token`: an API client's, which reaches its client's orders only (privacy/reach.py)."""
    address = address_checked(address)
    reach = Reach(api_token=api_token)
    orders = reach.orders(address)
    order_ids = list(orders.values_list("id", flat=True))
    elsewhere = reach.elsewhere(address)
    document: dict[str, Any] = {
        "about": f"Everything this service holds about {address}, as of {timezone.now().isoformat()}.",
        "email address": address,
        "orders": orders_export(orders),
    }
    document.update(notifications_export(order_ids=order_ids, address=address, elsewhere=elsewhere))
    for path in settings.PERSONAL_DATA_EXPORT_STEPS.values():
        # What quotes the address belongs in it too; what holds a word of the name does not.
        document.update(import_string(path)(order_ids=order_ids, address=address, elsewhere=elsewhere))
    document["erasures of this address's data"] = [
        {
            "at": erasure.erased_at.isoformat(),
            "asked through": erasure.get_via_display(),
            "by": erasure.actor_name,
        }
        for erasure in erasures_of(address, reach)
    ]
    if via is not None:
        Export.objects.create(
            address_hash=address_hash(address),
            via=via,
            actor=actor,
            actor_name=actor_name,
            orders=len(document["orders"]),
        )
    return document


__all__ = ["AddressRefused", "customer_export"]
