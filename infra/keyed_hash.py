"""The keyed hash that stands for an email address where the address itself may not stay:
a suppression that must outlive the address's erasure, the record of an erasure, an order's
match against the suppression list.

HMAC-SHA256 under PERSONAL_DATA_HASH_KEY, a secret of the deployment, of the address as
compared everywhere (trimmed, lower case). Without the key, a hash can neither be turned back
into its address nor checked against a guessed one (a plain hash of an address can: addresses
are few enough to try); with it, this service can tell whether an address it is given is the
one a hash stands for, which is all it needs.
"""

import hashlib
import hmac

from django.conf import settings


def address_hash(address: str) -> str:
    """64 hex characters; the same for an address whatever its case."""
    key = settings.PERSONAL_DATA_HASH_KEY.encode()
    return hmac.new(key, address.strip().lower().encode(), hashlib.sha256).hexdigest()
