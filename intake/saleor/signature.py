"""Saleor-Signature: a detached JWS of the body, checked against the shop's published keys.

Saleor signs a delivery with PyJWT's `api_jws.encode(body, key, algorithm="RS256",
headers={"kid": <key id>, "crit": ["b64"]}, is_payload_detached=True)`: the JWS header says
`"b64": false`, so what is signed is the header's base64 joined to the raw body, and the token
carries no payload ("<header>..<signature>"). PyJWT's `decode_complete(...,
detached_payload=body)` checks the body only when the header says so (read in PyJWT 2.12: it
rebuilds the signing input from the raw body when b64 is false, refuses a `crit` it does not
know, and otherwise verifies the token's own payload and ignores the body), so that shape is
checked first and anything else refused. Only RS256 is accepted, whatever the token's header
says, so a token cannot pick an algorithm of its own.

The keys are the JWKS at /.well-known/jwks.json of the shop's API URL, kept by each process for
KEYS_FRESH_FOR. A key id the process does not hold fetches them again at once (Saleor rotates its
key by publishing a new one), but not more often than REFETCH_AT_MOST_EVERY per shop, so that
deliveries naming made-up key ids cannot make the intake hammer the shop. Keys that cannot be
fetched are not a bad signature: the delivery is answered 503 and Saleor sends it again. That
answer goes to whoever posted, signed or not, so it says no more than that; why (a network
error, the address the shop's host resolved to) goes to the log, and to staff through the
admin's connection check (`keys_fetched_now`).

The token's header is JSON that PyJWT parses with no bound on its nesting (and it catches only
ValueError around it): its depth is measured first (infra/json_nesting.py), so a header of a few
kilobytes nested a thousand levels deep is a 401, not a RecursionError."""

import base64
import json
import logging
import threading
from dataclasses import dataclass, field
from time import monotonic
from typing import Any
from urllib.parse import urlsplit

import jwt
import requests
from jwt import PyJWK, PyJWKSet
from jwt.exceptions import PyJWKSetError, PyJWTError

from infra.json_nesting import MAX_JSON_NESTING, json_nesting
from infra.outbound import OutboundRefused, outbound_get

KEYS_FRESH_FOR = 600.0  # seconds
REFETCH_AT_MOST_EVERY = 30.0  # seconds
FETCH_TIMEOUT = (2.0, 3.0)  # connect, read: inside a webhook request, so short
_MAX_JWKS_BYTES = 64 * 1024
KEYS_UNAVAILABLE = "the shop's keys cannot be fetched now; Saleor sends the delivery again"

logger = logging.getLogger(__name__)


class SignatureInvalid(Exception):
    """The body is not signed by the shop's Saleor: why, in words."""


class KeysUnavailable(Exception):
    """The shop's keys could not be fetched, so nothing can be said of the signature yet."""


@dataclass
class _KeySet:
    keys: dict[str, PyJWK] = field(default_factory=dict)
    fetched_at: float = float("-inf")
    tried_at: float = float("-inf")
    # One shop's fetch, up to FETCH_TIMEOUT, holds back only that shop's deliveries.
    lock: threading.Lock = field(default_factory=threading.Lock)


_key_sets: dict[str, _KeySet] = {}
_lock = threading.Lock()  # guards _key_sets itself, never held across a fetch


def _key_set(url: str) -> _KeySet:
    with _lock:
        return _key_sets.setdefault(url, _KeySet())


def jwks_url(api_url: str) -> str:
    """https://shop.example/graphql/ → https://shop.example/.well-known/jwks.json"""
    parts = urlsplit(api_url if "//" in api_url else f"https://{api_url}")
    return f"{parts.scheme or 'https'}://{parts.netloc}/.well-known/jwks.json"


def signature_check(*, api_url: str, body: bytes, signature: str) -> None:
    """Returns when the body is signed with a key the shop publishes; raises SignatureInvalid
    or KeysUnavailable."""
    _header_nesting_check(signature)
    try:
        header = jwt.get_unverified_header(signature)
    except PyJWTError as exc:
        raise SignatureInvalid(
            "Saleor-Signature is not a JWS (a webhook with a secret key signs otherwise: leave "
            f"its secret key empty): {exc}."
        ) from exc
    _detached_unencoded_check(signature, header)
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise SignatureInvalid("The signature's JWS header names no key (kid).")
    url = jwks_url(api_url)
    try:
        key = _key(url, kid)
    except KeysUnavailable as exc:
        logger.warning("Saleor keys at %s cannot be fetched: %s", url, exc)
        raise KeysUnavailable(KEYS_UNAVAILABLE) from exc
    try:
        jwt.api_jws.decode_complete(signature, key.key, algorithms=["RS256"], detached_payload=body)
    except PyJWTError as exc:
        raise SignatureInvalid(f"The body does not verify with the shop's key {kid}: {exc}.") from exc


def _header_nesting_check(signature: str) -> None:
    """Refuses a JWS header nested deeper than any JSON this service reads, before PyJWT parses
    it. A header that is not base64url or not UTF-8 is left to PyJWT, which refuses it."""
    segment = signature.split(".", 1)[0]
    try:
        header = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)).decode()
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        return
    depth = json_nesting(header)
    if depth > MAX_JSON_NESTING:
        raise SignatureInvalid(
            f"Saleor-Signature is not a JWS: its header nests {depth} levels deep; at most "
            f"{MAX_JSON_NESTING} are accepted."
        )


def _detached_unencoded_check(signature: str, header: dict[str, Any]) -> None:
    """Only a detached JWS of the unencoded body ("<header>..<signature>", `b64` false, `crit`
    exactly ["b64"]) is a signature of the body. PyJWT reads the body in only when the header
    says `b64` false; any other token it verifies over its own payload, whatever the request's
    body. Saleor signs its customers' access tokens with the same key and key id as its
    webhooks, so without this check anyone who can log in to the storefront could sign any
    delivery."""
    segments = signature.split(".")
    if (
        len(segments) != 3
        or segments[1] != ""
        or header.get("b64") is not False
        or header.get("crit") != ["b64"]
    ):
        raise SignatureInvalid(
            'Saleor-Signature is not a detached JWS of the body ("<header>..<signature>" with '
            '"b64": false and "crit": ["b64"]): a token signed over anything else proves nothing '
            "of this body."
        )


def _key(url: str, kid: str) -> PyJWK:
    key_set = _key_set(url)
    with key_set.lock:
        now = monotonic()
        stale = now - key_set.fetched_at > KEYS_FRESH_FOR
        if (stale or kid not in key_set.keys) and now - key_set.tried_at >= REFETCH_AT_MOST_EVERY:
            key_set.tried_at = now
            try:
                key_set.keys = _fetched(url)
                key_set.fetched_at = now
            except KeysUnavailable:
                # A key fetched before still proves the shop's signature while its Saleor is
                # out of reach; without one, nothing can be said.
                if kid not in key_set.keys:
                    raise
        elif not key_set.keys and key_set.fetched_at < key_set.tried_at:  # the last try failed
            raise KeysUnavailable(
                f"The keys at {url} could not be fetched {now - key_set.tried_at:.0f} s ago; "
                f"they are tried again {REFETCH_AT_MOST_EVERY:.0f} s after that."
            )
        if kid not in key_set.keys:
            raise SignatureInvalid(f"The shop publishes no key {kid} at {url}.")
        return key_set.keys[kid]


def _fetched(url: str) -> dict[str, PyJWK]:
    try:
        response = outbound_get(
            url, max_bytes=_MAX_JWKS_BYTES, timeout=FETCH_TIMEOUT, headers={"Accept": "application/json"}
        )
    except (requests.RequestException, OutboundRefused) as exc:
        raise KeysUnavailable(f"The keys at {url} could not be fetched: {exc}") from exc
    if response.status_code != 200:
        raise KeysUnavailable(f"The keys at {url} could not be fetched: HTTP {response.status_code}.")
    try:
        document: Any = json.loads(response.content)
        key_set = PyJWKSet.from_dict(document)
    except (ValueError, PyJWKSetError, PyJWTError) as exc:
        raise KeysUnavailable(f"{url} is not a JWKS this service can read: {exc}.") from exc
    return {key.key_id: key for key in key_set.keys if key.key_id}


def keys_fetched_now(api_url: str) -> tuple[str, list[str]]:
    """The admin's connection check: the shop's keys fetched now (and kept), as the JWKS
    address and its key ids. Raises KeysUnavailable."""
    url = jwks_url(api_url)
    keys = _fetched(url)
    key_set = _key_set(url)
    with key_set.lock:
        now = monotonic()
        key_set.keys, key_set.fetched_at, key_set.tried_at = keys, now, now
    return url, sorted(keys)


def keys_forget() -> None:
    """Every process's cache starts empty; the tests start each from it."""
    with _lock:
        _key_sets.clear()
