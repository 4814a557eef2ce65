"""The SMTP twin of the mail simulator: a real SMTP server (aiosmtpd) that stores what it
accepts and can fail the way real servers do, including after it has the message.

    python -m tools.mailsim.smtp --host 127.0.0.1 --port 2525 --data-dir var/mailsim-smtp

Accepted messages are appended to `<data-dir>/messages.jsonl` (one JSON object a line:
message_id, from, to, subject, idempotency key header, accepted_at, the top-level header
names, and each attachment's filename, content_type, size, sha256 and the file under
`<data-dir>/attachments/` that holds its bytes). `--size-limit` is the SIZE its EHLO
announces (aiosmtpd's 32 MiB by default; 0 announces none). Faults are read from
`<data-dir>/faults.json` at every message, so a test switches them by writing that file:
`{"kind": "store_then_drop" | "stall" | "reject_4xx" | "reject_5xx", "times": n, "seconds": s}`.
- store_then_drop: store the message, then close the connection without the final reply
  (RFC 1047's window: the client cannot tell whether it was accepted);
- stall: store, then wait `seconds` before replying 250;
- reject_4xx / reject_5xx: refuse the message (451 / 550); nothing stored.
Development and tests only: no authentication, no TLS.
"""

import argparse
import asyncio
import hashlib
import json
import os
import signal
import sys
import threading
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import DATA_SIZE_DEFAULT, SMTP, Envelope, Session

_lock = threading.Lock()


class StoringHandler:
    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.messages = data_dir / "messages.jsonl"
        self.faults = data_dir / "faults.json"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        fault = self._take_fault()
        kind = fault.get("kind")
        if kind == "reject_4xx":
            return "451 4.3.0 Temporary failure, try again later"
        if kind == "reject_5xx":
            return "550 5.1.1 The recipient address was rejected"
        self._store(envelope)
        if kind == "store_then_drop":
            assert server.transport is not None  # set for the whole connection
            server.transport.close()  # the message is kept; the client never hears so
            return "250 OK"  # never reaches the client: the transport is closed
        if kind == "stall":
            await asyncio.sleep(float(fault.get("seconds", 30)))
        return "250 OK: queued"

    def _store(self, envelope: Envelope) -> None:
        assert isinstance(envelope.content, bytes)  # SMTP(decode_data=False), the default
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        record = {
            "message_id": parsed.get("Message-ID"),
            "from": envelope.mail_from,
            "to": list(envelope.rcpt_tos),
            "subject": parsed.get("Subject"),
            "idempotency_key": parsed.get("X-Idempotency-Key"),
            "event_id": parsed.get("X-Event-Id"),
            "accepted_at": datetime.now(UTC).isoformat(),
            "header_names": list(parsed.keys()),
            "attachments": self._attachments(parsed),
        }
        with _lock, self.messages.open("a") as file:
            file.write(json.dumps(record) + "\n")
            file.flush()
            os.fsync(file.fileno())

    def _attachments(self, parsed: Any) -> list[dict[str, Any]]:
        found = []
        assert isinstance(parsed, EmailMessage)  # policy.default parses into EmailMessage
        for part in parsed.iter_attachments() if parsed.is_multipart() else ():
            content = part.get_payload(decode=True)
            assert isinstance(content, bytes)  # an attachment is a leaf part: its decoded bytes
            digest = hashlib.sha256(content).hexdigest()
            path = self.data_dir / "attachments" / digest
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(content)
            found.append(
                {
                    "filename": part.get_filename(),
                    "content_type": part.get_content_type(),
                    "size": len(content),
                    "sha256": digest,
                    "path": str(path),
                }
            )
        return found

    def _take_fault(self) -> dict[str, Any]:
        """The current fault, counting one use of it down (`times`)."""
        with _lock:
            if not self.faults.exists():
                return {}
            fault = json.loads(self.faults.read_text() or "{}")
            times = fault.get("times")
            if times is not None:
                if times <= 0:
                    return {}
                fault["times"] = times - 1
                self.faults.write_text(json.dumps(fault))
            return fault


async def serve(host: str, port: int, data_dir: Path, size_limit: int = DATA_SIZE_DEFAULT) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    handler = StoringHandler(data_dir)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="mailsim.local", data_size_limit=size_limit or None), host, port
    )
    bound = server.sockets[0].getsockname()
    print(f"mailsim smtp listening on {bound[0]}:{bound[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    await server.wait_closed()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mailsim.smtp", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--host", default=os.environ.get("MAILSIM_SMTP_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("MAILSIM_SMTP_PORT", "2525")))
    parser.add_argument("--data-dir", default=os.environ.get("MAILSIM_SMTP_DATA_DIR", "var/mailsim-smtp"))
    parser.add_argument("--size-limit", type=int, default=DATA_SIZE_DEFAULT)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.host, args.port, Path(args.data_dir), args.size_limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
