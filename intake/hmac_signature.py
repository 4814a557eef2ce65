"""The HMAC-SHA256 signature Shopify and WooCommerce both put on a delivery (base64 of the
HMAC of the raw body), and the one comparison of it with what a request's header says."""

import base64
import hashlib
import hmac


def hmac_sha256_base64(body: bytes, key: bytes) -> str:
    return base64.b64encode(hmac.new(key, body, hashlib.sha256).digest()).decode()


def signature_matches(*, expected: str, given: str) -> bool:
    """In constant time, on bytes: a header's value reaches the view as Latin-1 text, and
    `hmac.compare_digest` raises TypeError for a str with a character beyond ASCII."""
    if not given:
        return False
    return hmac.compare_digest(expected.encode(), given.strip().encode("utf-8", errors="replace"))
