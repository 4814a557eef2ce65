"""An email address as this service compares it, whoever wrote it: trimmed, in lower case, and
with its domain in the ASCII form IDNA gives it, since a provider may report ada@münchen.de as
ada@xn--mnchen-3ya.de. The one rule for the provider's events (notifications/tracking/sends.py),
the keyed hash (infra/keyed_hash.py) and the erasure's search for an address in words."""

from contextlib import suppress


def address_comparable(address: str) -> str:
    local, at, domain = address.strip().rpartition("@")
    with suppress(UnicodeError):  # a domain IDNA refuses (an empty or too long label) stays as is
        domain = domain.encode("idna").decode("ascii")
    return f"{local}{at}{domain}".lower()


def address_forms(address: str) -> list[str]:
    """The address as it may be written: as comparable, and with its domain in Unicode (as a
    person types it); one form for a domain that is ASCII either way."""
    comparable = address_comparable(address)
    local, at, domain = comparable.rpartition("@")
    with suppress(UnicodeError):
        domain = domain.encode("ascii").decode("idna")
    return list(dict.fromkeys([comparable, f"{local}{at}{domain}".lower()]))
