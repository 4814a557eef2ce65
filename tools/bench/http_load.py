"""An open-loop load of prepared HTTP POSTs, light enough not to take the CPU that the service
under measure needs: one thread, asyncio, each request's bytes made before the load starts,
a new connection per request (as a platform's webhook delivery comes), its answer read to the
end of its Content-Length.

Why not `requests` in a thread pool: 64 threads of it took 2.6 ms of CPU a delivery, a
fourteenth of all the machine spent at 50 deliveries a second, and on a busy moment could not
post 50 a second by itself; the phase then failed on its own client."""

import asyncio
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    sent_at: float  # time.monotonic() when the connection was opened
    ms: float  # from opening the connection to the answer's last byte
    status: int  # 0: no answer (refused, reset, timed out)
    body: bytes  # or, without an answer, why


def request_bytes(host: str, port: int, path: str, body: bytes, headers: dict[str, str]) -> bytes:
    """A POST as a platform sends it, on a connection of its own."""
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def posts_at_rate(
    host: str, port: int, requests: list[bytes], *, rate: float, timeout: float
) -> list[Answer]:
    """Each request at its time on a fixed schedule (request i at i / rate seconds): a slow
    answer never delays the next request. Returns the answers in the requests' order."""
    return asyncio.run(_load(host, port, requests, rate=rate, timeout=timeout))


async def _load(host: str, port: int, requests: list[bytes], *, rate: float, timeout: float) -> list[Answer]:
    start = time.monotonic() + 0.2
    posts = [_post_at(start + index / rate, host, port, raw, timeout) for index, raw in enumerate(requests)]
    return list(await asyncio.gather(*posts))


async def _post_at(when: float, host: str, port: int, raw: bytes, timeout: float) -> Answer:
    await asyncio.sleep(max(0.0, when - time.monotonic()))
    sent_at = time.monotonic()
    writer = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(raw)
            head = await reader.readuntil(b"\r\n\r\n")
            status, length = _status_and_length(head)
            body = await reader.readexactly(length)
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
        return Answer(sent_at, (time.monotonic() - sent_at) * 1000, 0, f"no answer: {exc!r}".encode())
    finally:
        if writer is not None:
            writer.close()
    return Answer(sent_at, (time.monotonic() - sent_at) * 1000, status, body)


def _status_and_length(head: bytes) -> tuple[int, int]:
    """The status code and Content-Length of an answer's head (ValueError without either)."""
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    for line in header_lines:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            return status, int(value)
    raise ValueError(f"an answer without Content-Length: {status_line}")
