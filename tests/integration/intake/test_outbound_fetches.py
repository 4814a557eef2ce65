"""The two fetches from an address a shop's settings name, as an attacker would aim them: a
Saleor shop's keys and a WooCommerce store's REST API. In production only public https
addresses are asked (no loopback, private or link-local address, however it is spelled), a
redirect is refused rather than followed (with the store's key), and at most the limit of a body
is read. Stand-in servers run here over real HTTP and count what reached them."""

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from requests_hardened.ip_filter import InvalidIPAddress, get_ip_address

from intake.saleor import signature
from intake.saleor.signature import KeysUnavailable, keys_fetched_now
from shops.models import Shop
from tests import woocommerce_payloads as woo

pytestmark = pytest.mark.django_db


@dataclass
class StandIn:
    """An HTTP server on this machine; `answer(handler)` writes each response; `asked` keeps
    each request's path and Authorization header."""

    answer: Callable[[BaseHTTPRequestHandler], None]
    asked: list[tuple[str, str]] = field(default_factory=list)
    sent_bytes: int = 0

    def __post_init__(self) -> None:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stand_in.asked.append((self.path, self.headers.get("Authorization", "")))
                stand_in.answer(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stand_ins() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], StandIn]]:
    made: list[StandIn] = []
    signature.keys_forget()

    def make(answer: Callable[[BaseHTTPRequestHandler], None]) -> StandIn:
        made.append(StandIn(answer))
        return made[-1]

    yield make
    for stand_in in made:
        stand_in.close()
    signature.keys_forget()


@pytest.fixture
def production_fetches(settings) -> None:
    settings.HTTPS_ONLY = True
    settings.SHOP_FETCH_PRIVATE_ADDRESSES = False


def _json(document: object, status: int = 200) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        body = json.dumps(document).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def _redirect_to(location: str) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def _endless(stand_in_of: list[StandIn]) -> Callable[[BaseHTTPRequestHandler], None]:
    """A body with no Content-Length that goes on for 64 MiB, counting what it could send."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b" " * 65536
        try:
            for _ in range(1024):
                handler.wfile.write(chunk)
                stand_in_of[0].sent_bytes += len(chunk)
        except OSError:
            pass  # the client stopped reading and closed: what the test wants

    return answer


@pytest.mark.parametrize(
    "address",
    [
        "http://{host}:{port}/graphql/",
        "https://127.0.0.1:{port}/graphql/",
        "https://localhost:{port}/graphql/",
        "https://[::ffff:127.0.0.1]:{port}/graphql/",
        "https://2130706433:{port}/graphql/",
        # Were the guard gone, the test would send to this test network's range, nowhere else.
        "https://198.18.0.1:{port}/graphql/",
    ],
    ids=["plain http", "loopback", "localhost", "mapped IPv6", "decimal", "private"],
)
def test_in_production_the_keys_are_never_asked_of_this_machine_or_its_network(
    stand_ins, production_fetches, address
):
    # given: a Saleor shop whose address a staff user aimed at something internal
    stand_in = stand_ins(_json({"keys": []}))
    url = address.format(host="127.0.0.1", port=stand_in.port)
    # when
    with pytest.raises(KeysUnavailable) as refused:
        keys_fetched_now(url)
    # then: refused before any connection, with the reason
    assert "not asked" in str(refused.value)
    assert stand_in.asked == []


@pytest.mark.parametrize(
    "address", ["169.254.169.254", "10.0.0.5", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fd00::1", "::1"]
)
def test_the_address_check_we_rely_on_refuses_the_cloud_s_metadata_and_private_networks(address):
    # requests-hardened's own check, as outbound_get uses it, on numeric addresses: resolving
    # them sends nothing, so no packet leaves for those networks even if it failed.
    with pytest.raises(InvalidIPAddress):
        get_ip_address(address, 443, allow_loopback=False)


def test_a_redirect_from_the_shop_s_keys_is_refused_not_followed(stand_ins):
    # given: the shop's server sends the fetch on to another address (here another stand-in)
    target = stand_ins(_json({"keys": []}))
    shop_server = stand_ins(_redirect_to(f"http://127.0.0.1:{target.port}/.well-known/jwks.json"))
    # when
    with pytest.raises(KeysUnavailable) as refused:
        keys_fetched_now(f"http://127.0.0.1:{shop_server.port}/graphql/")
    # then
    assert "a redirect to" in str(refused.value)
    assert len(shop_server.asked) == 1
    assert target.asked == []


def test_keys_larger_than_the_limit_are_not_read_past_it(stand_ins):
    # given: a body that does not end
    holder: list[StandIn] = []
    holder.append(stand_ins(_endless(holder)))
    # when
    with pytest.raises(KeysUnavailable) as refused:
        keys_fetched_now(f"http://127.0.0.1:{holder[0].port}/graphql/")
    # then: refused after the limit, and the connection closed long before the 64 MiB were sent
    assert "more than 65536 bytes" in str(refused.value)
    assert holder[0].sent_bytes < 16 * 1024 * 1024


def _woo_shop(url: str) -> Shop:
    return Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform="woocommerce",
        domain=url,
        webhook_secret=woo.WEBHOOK_SECRET,
        # Made here: a tracked file holds no literal key (tests/unit/secret_scan.py).
        api_key=hashlib.sha256(b"outbound key").hexdigest()[:27],
        api_secret=hashlib.sha256(b"outbound secret").hexdigest()[:27],
    )


def test_in_production_the_backfill_sends_no_key_over_plain_http(stand_ins, production_fetches):
    store = stand_ins(_json([]))
    _woo_shop(f"http://127.0.0.1:{store.port}")
    with pytest.raises(CommandError, match=r"The store was not asked: .* is not an https address"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")
    assert store.asked == []


def test_a_redirect_from_the_store_is_refused_and_the_key_goes_nowhere_else(stand_ins):
    # given: the store's address sends the backfill on to another server
    elsewhere = stand_ins(_json([]))
    store = stand_ins(_redirect_to(f"http://127.0.0.1:{elsewhere.port}/wp-json/wc/v3/orders"))
    _woo_shop(f"http://127.0.0.1:{store.port}")
    # when
    with pytest.raises(CommandError, match=r"a redirect to .* redirects are not followed"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")
    # then: the store was asked once (with its own key), the other server never
    assert [auth.startswith("Basic ") for _, auth in store.asked] == [True]
    assert elsewhere.asked == []


def test_a_store_page_that_is_not_json_or_says_no_page_count_is_a_clear_error(stand_ins):
    # given: a page that is HTML, as a misconfigured WordPress answers
    def html(handler: BaseHTTPRequestHandler) -> None:
        body = b"<html>maintenance</html>"
        handler.send_response(200)
        handler.send_header("X-WP-TotalPages", "many")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    store = stand_ins(html)
    _woo_shop(f"http://127.0.0.1:{store.port}")
    with pytest.raises(CommandError, match="page 1 of orders is not JSON"):
        call_command("shop_backfill", "tea-house-woo", "--since", "2026-11-30")
