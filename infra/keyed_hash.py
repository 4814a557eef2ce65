"""The keyed hash that stands for an email address where the address itself may not stay:
a suppression that must outlive the address's erasure, the record of an erasure, an order's
match against the suppression list, an attempt's recipient.

HMAC-SHA256 under PERSONAL_DATA_HASH_KEY, a secret of the deployment, of the address as
compared everywhere (infra/addresses.py: trimmed, lower case, the domain in the ASCII form IDNA
2008 gives it).
Without the key, a hash can neither be turned back into its address nor checked against a
guessed one (a plain hash of an address can: addresses are few enough to try); with it, this
service can tell whether an address it is given is the one a hash stands for, which is all it
needs.

A hash is written under the current key; a lookup matches any of `address_hashes`: under the
current key and, while a rotation is under way, PERSONAL_DATA_HASH_KEY_PREVIOUS, of each of the
address's forms (`address_forms`: its domain in ASCII and in Unicode, and the address as given,
which is how hashes made before domains were normalised hold it). Never a hash made under the
earlier IDNA 2003 rule where the two differ (ß, ς, a joiner: ada@straße.de was hashed as
ada@strasse.de): it is the hash of another domain's address too, and nothing tells whose.
`manage.py personal_data_rehash` moves stored hashes to the first, those rows included where
the row holds its address.
"""

import hashlib
import hmac

from django.conf import settings

from infra.addresses import address_comparable, address_forms


def address_hash(address: str) -> str:
    """64 hex characters; the same for an address whatever its case or its domain's form."""
    return _hmac(settings.PERSONAL_DATA_HASH_KEY, address_comparable(address))


def address_hashes(address: str) -> list[str]:
    """Every hash a stored row may hold for the address, `address_hash` first."""
    keys = [settings.PERSONAL_DATA_HASH_KEY, settings.PERSONAL_DATA_HASH_KEY_PREVIOUS]
    hashes = [_hmac(key, form) for key in keys if key for form in address_forms(address)]
    return list(dict.fromkeys(hashes))


def _hmac(key: str, text: str) -> str:
    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()
