"""A sample order as a platform would deliver it, for the admin's "Send a test delivery": one
line, a parcel's worth of address, paid, addressed to the person who asked, so that they receive
its confirmation as a customer would. What every platform's sample is made of is here; each
platform's own is in its package (intake/shopify/sample.py, intake/woocommerce/sample.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shops.models import Shop

# The customer every sample is addressed to, but for the email address: the asker's.
SAMPLE_CUSTOMER = {
    "first_name": "Test",
    "last_name": "Customer",
    "street": "Teststraße 1",
    "city": "Berlin",
    "postcode": "10117",
    "country": "DE",
}


@dataclass(frozen=True)
class SampleDelivery:
    """A new, paid order as the platform delivers it: the topic; the payload, of the order's
    number, the customer's email address and the time; the request's headers (by their HTTP
    names) for the shop, the topic and the body, signed as the platform signs."""

    topic: str
    payload_of: Callable[[int, str, datetime], dict[str, Any]]
    headers_of: Callable[[Shop, str, bytes], dict[str, str]]
