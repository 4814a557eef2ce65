"""The RabbitMQ management HTTP API: vhosts for development and tests, queue figures; and the
broker URL, which may list a cluster's nodes."""

from typing import Any
from urllib.parse import quote, unquote, urlsplit

import requests


class RabbitAdmin:
    def __init__(self, management_url: str, timeout: float = 10.0):
        parts = urlsplit(management_url)
        self._base = f"{parts.scheme}://{parts.hostname}:{parts.port or 15672}/api"
        self._auth = (parts.username or "guest", parts.password or "guest")
        self._timeout = timeout

    def vhost_ensure(self, vhost: str, *, user: str) -> None:
        """Create the vhost if missing and give `user` full rights on it (idempotent)."""
        self._request("PUT", f"/vhosts/{quote(vhost, safe='')}", json={})
        self._request(
            "PUT",
            f"/permissions/{quote(vhost, safe='')}/{quote(user, safe='')}",
            json={"configure": ".*", "write": ".*", "read": ".*"},
        )

    def vhost_delete(self, vhost: str) -> None:
        response = self._request("DELETE", f"/vhosts/{quote(vhost, safe='')}", allow=(404,))
        response.close()

    def vhost_names(self) -> list[str]:
        return [vhost["name"] for vhost in self._request("GET", "/vhosts?columns=name").json()]

    def vhost_connections(self, vhost: str) -> int:
        """How many client connections the vhost has now."""
        return len(
            self._request("GET", f"/vhosts/{quote(vhost, safe='')}/connections", allow=(404,)).json() or []
        )

    def queues(self, vhost_quoted: str) -> list[dict[str, Any]]:
        columns = "name,type,messages_ready,messages_unacknowledged,consumers,message_stats.redeliver"
        return self._request("GET", f"/queues/{vhost_quoted}?columns={columns}").json()

    def _request(
        self, method: str, path: str, *, allow: tuple[int, ...] = (), **kwargs: Any
    ) -> requests.Response:
        response = requests.request(
            method, self._base + path, auth=self._auth, timeout=self._timeout, **kwargs
        )
        if response.status_code >= 400 and response.status_code not in allow:
            raise RuntimeError(
                f"RabbitMQ management API {method} {path} answered {response.status_code}: "
                f"{response.text[:300]}"
            )
        return response


def broker_urls(broker_url: str) -> list[str]:
    """The node URLs of a broker URL: one, or several separated by `;` (a cluster's nodes, in
    the order a client tries them; kombu and Celery fail over along this list)."""
    urls = [url.strip() for url in broker_url.split(";") if url.strip()]
    if not urls:
        raise ValueError(f"no broker URL in {broker_url!r}")
    return urls


def broker_url_normalized(broker_url: str) -> str:
    """The node list without blanks: kombu reads " amqp://…" (a space after the `;`) as a
    host of None and fails over to nowhere; CELERY_BROKER_URL is read through this."""
    return ";".join(broker_urls(broker_url))


def vhost_of(broker_url: str) -> str:
    """The vhost of the first node (every node of a list serves the same vhost)."""
    path = urlsplit(broker_urls(broker_url)[0]).path
    return unquote(path[1:]) if len(path) > 1 else "/"


def user_of(broker_url: str) -> str:
    return urlsplit(broker_urls(broker_url)[0]).username or "guest"


def broker_url_with_vhost(broker_url: str, vhost: str) -> str:
    """The same node list, every node on `vhost`."""
    return ";".join(
        urlsplit(url)._replace(path="/" + quote(vhost, safe="")).geturl() for url in broker_urls(broker_url)
    )
