"""What a platform's check of a delivery answers. Each platform proves that a delivery is its
own in its own way (intake/shopify/verification.py, intake/woocommerce/verification.py,
intake/saleor/verification.py; intake/platforms.py says which is whose), checked on the raw
bytes before anything parses them, and names the delivery: its event key (what is signed, the
body, by its digest: intake/delivery_keys.py; a Shopify shop/redact's in
intake/shopify/shop_redact.py), its topic, and the ids the platform gives it, for a person
tracing it. A delivery that fails is refused with the status it gets and nothing is stored."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Verified:
    event_key: str
    topic: str
    webhook_id: str = ""


@dataclass(frozen=True)
class Refused:
    status: int
    detail: str
