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

from infra.keyed_hash import address_hash
from notifications.personal_data import notifications_export
from orders.personal_data import orders_export, orders_of_address
from privacy.erasure import AddressRefused, address_checked, erasures_of
from privacy.models import Export


def customer_export(
    address: str, *, via: str | None = None, actor: User | None = None, actor_name: str = ""
) -> dict[str, Any]:
    """The document; AddressRefused (the same refusal) for what is not an address. `via`: it
    is handed out (the command, the API, the admin's download), and recorded (Export)."""
    address = address_checked(address)
    orders = orders_of_address(address)
    order_ids = list(orders.values_list("id", flat=True))
    document: dict[str, Any] = {
        "about": f"Everything this service holds about {address}, as of {timezone.now().isoformat()}.",
        "email address": address,
        "orders": orders_export(orders),
    }
    document.update(notifications_export(order_ids=order_ids, address=address))
    for path in settings.PERSONAL_DATA_EXPORT_STEPS.values():
        # What quotes the address belongs in it too; what holds a word of the name does not.
        document.update(import_string(path)(order_ids=order_ids, address=address, elsewhere=[address]))
    document["erasures of this address's data"] = [
        {
            "at": erasure.erased_at.isoformat(),
            "asked through": erasure.get_via_display(),
            "by": erasure.actor_name,
        }
        for erasure in erasures_of(address)
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
