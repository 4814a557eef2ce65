"""Saleor's proof that a delivery is its own: the JWS of the body with the shop's published keys
(intake/saleor/signature.py), then the Saleor the delivery names (intake/verification.py says
what the answer holds); the place a shop's deliveries are proven to come from; and what the
admin's test of a shop can check."""

from django.http import HttpHeaders

from intake.delivery_keys import body_key
from intake.saleor.signature import (
    KeysUnavailable,
    SignatureInvalid,
    jwks_url,
    keys_fetched_now,
    signature_check,
)
from intake.verification import Refused, Verified
from shops.models import Shop
from shops.sites import site_of


def delivery_verify(shop: Shop, headers: HttpHeaders, body: bytes) -> Verified | Refused:
    signature = headers.get("Saleor-Signature", "")
    if not signature:
        return Refused(401, "The delivery is not signed (Saleor-Signature).")
    try:
        signature_check(api_url=shop.domain, body=body, signature=signature)
    except SignatureInvalid as exc:
        return Refused(401, str(exc))
    except KeysUnavailable as exc:
        # Not the sender's fault, and Saleor sends a delivery again after an error.
        return Refused(503, f"The signature cannot be checked now: {exc}")
    api_url = headers.get("Saleor-Api-Url", "")
    if site_of(api_url) != site_of(shop.domain):
        return Refused(401, f"This delivery is from {api_url or 'no Saleor'}, not {shop.domain}.")
    topic = headers.get("Saleor-Event", "")
    if not topic:
        return Refused(400, "A Saleor delivery names its event (Saleor-Event).")
    return Verified(body_key(body), topic[:100])


def keys_site_of(api_url: str) -> str:
    """Where a Saleor shop's deliveries are proven to come from: its keys' host (the JWKS at its
    root), whatever the API URL's path, since those keys sign for every path of that host."""
    return site_of(jwks_url(api_url))


def connection_check(shop: Shop) -> tuple[bool, str]:
    """The admin's test of a Saleor shop. Saleor signs with its own private key, which this
    service never holds: what can be checked from here is that the keys its deliveries are
    checked against can be fetched."""
    try:
        url, kids = keys_fetched_now(shop.domain)
    except KeysUnavailable as exc:
        return False, f"The shop's keys could not be fetched: {exc}"
    if not kids:
        return False, f"{url} publishes no key with an id to check against."
    return True, (
        f"{url} publishes {len(kids)} key(s) ({', '.join(kids)}): deliveries signed with them are "
        "accepted. Send a test from Saleor's dashboard to see one arrive."
    )
