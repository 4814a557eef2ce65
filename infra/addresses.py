"""An email address as this service compares it, whoever wrote it: trimmed, in lower case, and
with its domain in the ASCII form IDNA 2008 gives it, since a provider may report ada@münchen.de
as ada@xn--mnchen-3ya.de. The one rule for the provider's events (notifications/tracking/sends.py),
the keyed hash (infra/keyed_hash.py) and the erasure's search for an address in words.

IDNA 2008 with UTS #46's non-transitional processing (the `idna` package), as browsers and mail
software resolve a domain today. Not Python's "idna" codec: that is IDNA 2003, which makes ß ss,
a final sigma an inner one, and drops a zero-width joiner, so ada@straße.de (xn--strae-oqa.de)
would be one customer with ada@strasse.de, another domain. What UTS #46 maps names one domain
either way: either case, full-width letters, a soft hyphen (ignored).
"""

import re

import idna

_LABEL_MAX = 63  # characters of a DNS label: a longer one names no domain, and stays as written
_DOTS = re.compile("[.\u3002\uff0e\uff61]")  # the label separators of UTS #46


def address_comparable(address: str) -> str:
    local, at, domain = address.strip().rpartition("@")
    return f"{local}{at}{_domain_ascii(domain)}".lower()


def address_for_sending(address: str) -> str:
    """The address to hand a mail server: the local part as written (it may be case-sensitive at
    the receiving server), the domain as address_comparable has it. Django's SMTP backend would
    otherwise encode a Unicode domain with the IDNA 2003 codec, and send ada@straße.de to
    strasse.de, another domain's mailbox; an ASCII domain it leaves as it is."""
    local, at, domain = address.strip().rpartition("@")
    return f"{local}{at}{_domain_ascii(domain)}"


def address_forms(address: str) -> list[str]:
    """The address as it may be written, to search words for: as comparable, with its domain in
    Unicode (as a person types it), and as given (trimmed, lower case: with the full-width
    letter or the soft hyphen the comparable form maps away, as hashes made before domains
    were normalised hold it). One form for an address that is ASCII either way."""
    comparable = address_comparable(address)
    local, at, domain = comparable.rpartition("@")
    forms = [comparable, f"{local}{at}{_domain_unicode(domain)}", address.strip().lower()]
    return list(dict.fromkeys(forms))


def _domain_ascii(domain: str) -> str:
    """The domain's A-labels. A domain IDNA 2008 refuses (an empty or too long label, a symbol,
    a joiner out of place) is kept in lower case, its other labels in plain Punycode, mapped no
    further: Punycode is one-to-one, so two domains written apart stay apart (no IDNA 2003
    fallback, which would merge them again), and ☃.net is xn--n3h.net, as a provider reports
    it. Never raises: a hash is made of whatever an address is."""
    try:
        return idna.encode(domain, uts46=True, transitional=False).decode("ascii")
    except UnicodeError:  # idna.IDNAError is one
        return ".".join(_label_punycode(label) for label in _DOTS.split(domain.lower()))


def _label_punycode(label: str) -> str:
    if label.isascii() or len(label) > _LABEL_MAX:
        return label
    return "xn--" + label.encode("punycode").decode("ascii")


def _domain_unicode(domain: str) -> str:
    """An ASCII domain with each label that is the Punycode of a non-ASCII one in Unicode."""
    return ".".join(_label_unicode(label) for label in domain.split("."))


def _label_unicode(label: str) -> str:
    if not label.startswith("xn--") or len(label) > _LABEL_MAX or not label.isascii():
        return label
    try:
        decoded = label[4:].encode("ascii").decode("punycode")
    except UnicodeError:
        return label
    # Punycode of ASCII alone, or not written as it encodes ("xn--a-"), is no A-label of it.
    return decoded if not decoded.isascii() and _label_punycode(decoded) == label else label
