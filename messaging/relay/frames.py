"""The AMQP 0-9-1 frames of a basic.publish, so that a batch goes to the socket in one write.

py-amqp's basic_publish writes each message with a call of its own into the socket; for a
relay batch that was a system call per message, and the raw broker client in the bench pays
the same. These are the frames it writes (method, content header, body frames; each
`type, channel, size, payload, 0xCE`), encoded with py-amqp's own serializer.
"""

import functools
import struct
from collections.abc import Callable

from amqp import spec
from amqp.serialization import dumps

_FRAME_HEADER = struct.Struct(">BHI")  # type, channel, payload size
_CONTENT_HEADER = struct.Struct(">HHQ")  # class, weight (always 0), body size
_FRAME_END = b"\xce"
_METHOD, _HEADER, _BODY = 1, 2, 3
# A frame's header and end octet: a body frame carries at most frame_max minus these.
FRAME_OVERHEAD = _FRAME_HEADER.size + len(_FRAME_END)


@functools.lru_cache(maxsize=256)
def basic_publish_method_frame(channel_id: int, exchange: str, routing_key: str) -> bytes:
    """basic.publish with `mandatory` (an unroutable message comes back) and not `immediate`."""
    arguments = dumps("Bssbb", (0, exchange, routing_key, True, False))  # ticket, …, mandatory, immediate
    payload = struct.pack(">HH", *spec.Basic.Publish) + arguments
    return _frame(_METHOD, channel_id, payload)


def content_frames(channel_id: int, frame_max: int, properties: bytes, body: bytes) -> list[bytes]:
    """The content header of a message (its encoded properties) and its body, in frames of at
    most frame_max octets."""
    header = _CONTENT_HEADER.pack(spec.Basic.CLASS_ID, 0, len(body)) + properties
    frames = [_frame(_HEADER, channel_id, header)]
    chunk = frame_max - FRAME_OVERHEAD
    frames += [_frame(_BODY, channel_id, body[at : at + chunk]) for at in range(0, len(body), chunk)]
    return frames


class FrameBatch:
    """Frames of a batch, written to the socket together: a write per message was a system
    call per message (py-amqp's basic_publish writes each on its own)."""

    FLUSH_BYTES = 256 * 1024  # beyond this, a batch goes out in parts

    def __init__(self, write: Callable[[bytes], None]):
        self._write, self._frames, self._size = write, list[bytes](), 0

    def add(self, frames: list[bytes]) -> None:
        self._frames += frames
        self._size += sum(len(frame) for frame in frames)
        if self._size >= self.FLUSH_BYTES:
            self.write()

    def write(self) -> None:
        if self._frames:
            self._write(b"".join(self._frames))
            self._frames, self._size = [], 0


def _frame(frame_type: int, channel_id: int, payload: bytes) -> bytes:
    return _FRAME_HEADER.pack(frame_type, channel_id, len(payload)) + payload + _FRAME_END
