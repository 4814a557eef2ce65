"""The HMAC-SHA256 signature Shopify and WooCommerce both put on a delivery: base64 of the HMAC
of the raw body, keyed with the shop's secret, and the one comparison of it with what a
request's header says. What differs between the two, the header and how the platform makes its
key of the secret, each names in its package (intake/shopify/, intake/woocommerce/)."""

import base64
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass


def secret_as_typed(secret: str) -> str:
    """The key of a platform that signs with the shop's secret as it is (Shopify)."""
    return secret


@dataclass(frozen=True)
class HmacSigning:
    """How a platform signs a delivery: the header that carries the signature, and the key it
    makes of the shop's secret (UTF-8 encoded)."""

    header: str
    signing_key: Callable[[str], str] = secret_as_typed

    def signature_of(self, body: bytes, secret: str) -> str:
        key = self.signing_key(secret).encode()
        return base64.b64encode(hmac.new(key, body, hashlib.sha256).digest()).decode()

    def signature_valid(self, *, body: bytes, secret: str, signature: str) -> bool:
        """False for a shop without a secret, whatever the signature says."""
        return bool(secret) and signature_matches(expected=self.signature_of(body, secret), given=signature)


def signature_matches(*, expected: str, given: str) -> bool:
    """In constant time, on bytes: a header's value reaches the view as Latin-1 text, and
    `hmac.compare_digest` raises TypeError for a str with a character beyond ASCII."""
    if not given:
        return False
    return hmac.compare_digest(expected.encode(), given.strip().encode("utf-8", errors="replace"))
