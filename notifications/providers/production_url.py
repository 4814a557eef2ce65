"""Whether a provider API's URL can be production's: HTTPS, to a host that is neither this
machine nor the mail simulator. A development value left in a production environment would
hand real customers' emails to a simulator that delivers nothing, or send the API key in
clear. The host is read the way the HTTP client's resolver reads it (inet_aton takes
`2130706433`, `0x7f.1` and `127.1` for 127.0.0.1; IDNA folds full-width letters), so no
spelling of a loopback address passes; names are not looked up in DNS (an answer can change
after start-up, and a start must not wait for a resolver)."""

import ipaddress
import socket
from urllib.parse import urlsplit

# tools/bin/mailsim's default port (MAILSIM_PORT) and the simulator's service name in
# docker-compose.yml: a production URL naming either is the simulator under another host name.
SIMULATOR_PORT = 8025
SIMULATOR_NAME = "mailsim"
# Names a resolver answers with a loopback address without asking DNS (RFC 6761 reserves
# localhost and every name under it; Debian's /etc/hosts adds the ip6- ones).
LOOPBACK_NAMES = ("localhost", "ip6-localhost", "ip6-loopback")
# 0.0.0.0/8 is "this host" (RFC 1122): connecting to 0.0.0.0 reaches the local machine.
THIS_HOST = ipaddress.IPv4Network("0.0.0.0/8")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def production_url_problems(url: str, *, setting: str = "MAIL_PROVIDER_URL") -> list[str]:
    """What keeps `url` (the value of `setting`) from being a production provider's, in words."""
    try:
        parts = urlsplit(url)
        port = parts.port
        host = _host_as_resolved(parts.hostname or "")
    except (ValueError, UnicodeError) as exc:
        return [f"{setting}={url!r} is not a URL with a valid host ({exc})."]
    problems = []
    if parts.scheme != "https":
        problems.append(
            f"{setting}={url!r} is not https://: the API key and the customers' addresses "
            "would cross the network in clear."
        )
    if not host:
        problems.append(f"{setting}={url!r} names no host.")
    elif _is_this_machine(host):
        problems.append(
            f"{setting}={url!r} names this machine (the local simulator), not the provider; "
            "set it empty for the provider's public API."
        )
    elif host.split(".")[0] == SIMULATOR_NAME or port == SIMULATOR_PORT:
        problems.append(
            f"{setting}={url!r} is the mail simulator (its name or port {SIMULATOR_PORT}); "
            "set it empty for the provider's public API."
        )
    return problems


def _host_as_resolved(host: str) -> str:
    """The host name as the client looks it up: lower case, without the root's trailing dot,
    IDNA-encoded (which maps full-width and other look-alike letters to ASCII)."""
    host = host.lower().removesuffix(".")
    return host if host.isascii() else host.encode("idna").decode("ascii")


def _is_this_machine(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    address = _address(host)
    if address is None:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if address.is_loopback or address.is_unspecified:
            return True
        # ::ffff:127.0.0.1 (IPv4-mapped) and ::127.0.0.1 (IPv4-compatible) reach 127.0.0.1.
        address = address.ipv4_mapped or (
            ipaddress.IPv4Address(int(address)) if int(address) < 2**32 else None
        )
        if address is None:
            return False
    return address.is_loopback or address in THIS_HOST


def _address(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:  # the C library's forms: a single integer, hexadecimal, octal, fewer than four parts
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None
