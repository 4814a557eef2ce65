"""Requests this service makes to an address someone else typed: a Saleor shop's keys, a
WooCommerce store's REST API. Whoever sets a shop's address (a staff user, or the shop's own
server answering with a redirect) could otherwise aim the service at what only it can reach:
the cloud's metadata service, the database's host, an admin port on localhost.

So, for each such request:
- https only in production (HTTPS_ONLY); a key or a password never goes over plain HTTP there;
- the host is resolved once and the connection pinned to the address checked, which must not be
  loopback, private, link-local, multicast or reserved (requests-hardened, Saleor's own session:
  read in its 1.3.0 source, `ip_filter.get_ip_address` checks the first address getaddrinfo
  gives, IPv4-mapped IPv6 as IPv4, and `IPFilterAdapter` connects to that address with the
  name kept for the Host header, SNI and the certificate), unless SHOP_FETCH_PRIVATE_ADDRESSES
  allows them (development: the tests' and the demo's stand-ins run on this machine);
- a redirect is never followed: it is refused with where it pointed;
- at most `max_bytes` of the body are read: a larger one is refused, however it is sent.
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests_hardened import Config, Manager
from requests_hardened.ip_filter import InvalidIPAddress


class OutboundRefused(Exception):
    """The request was not made, or its answer not read: why, in words."""


@dataclass(frozen=True)
class Fetched:
    status_code: int
    headers: requests.structures.CaseInsensitiveDict[str]
    content: bytes


def outbound_get(url: str, *, max_bytes: int, timeout: tuple[float, float], **kwargs: Any) -> Fetched:
    """GET `url` under the rules above. Raises OutboundRefused for what the rules refuse, and
    requests.RequestException for what the network does (unreachable, timed out)."""
    _scheme_check(url)
    with _session() as session:
        try:
            response = session.get(url, timeout=timeout, stream=True, allow_redirects=False, **kwargs)
        except InvalidIPAddress as exc:
            host = urlsplit(url).hostname
            raise OutboundRefused(
                f"{host} is at {exc}, an address of this machine or its private network: not asked "
                "(SHOP_FETCH_PRIVATE_ADDRESSES allows it, for development)."
            ) from exc
        with response:
            if response.is_redirect:
                raise OutboundRefused(
                    f"{url} answered {response.status_code}, a redirect to "
                    f"{response.headers.get('Location', 'nowhere')}: redirects are not followed."
                )
            return Fetched(response.status_code, response.headers, _body(response, url, max_bytes))


def _scheme_check(url: str) -> None:
    scheme = urlsplit(url).scheme
    allowed = ("https",) if settings.HTTPS_ONLY else ("https", "http")
    if scheme not in allowed:
        raise OutboundRefused(f"{url} is not an {' or '.join(allowed)} address: not asked.")


def _session() -> requests.Session:
    filtered = not settings.SHOP_FETCH_PRIVATE_ADDRESSES
    config = Config(
        ip_filter_enable=filtered,
        ip_filter_allow_loopback_ips=False,
        never_redirect=True,
        default_timeout=(2, 10),
    )
    return Manager(config).get_session()


def _body(response: requests.Response, url: str, max_bytes: int) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise OutboundRefused(f"{url} sends {declared} bytes; at most {max_bytes} are read.")
    body = response.raw.read(max_bytes + 1, decode_content=True)
    if len(body) > max_bytes:
        raise OutboundRefused(f"{url} sends more than {max_bytes} bytes; at most {max_bytes} are read.")
    return bytes(body)
