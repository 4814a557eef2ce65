"""What a send wire gives the shared send pipeline (tools/mailsim/sending.py).

A wire is one provider's HTTP shape: how it authenticates, where its idempotency key travels, what
a valid body is and how its answers look. The pipeline owns the order of the checks, the fault
rules, idempotency and storage, so the wires cannot drift apart on those.
"""

import hmac
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tools.mailsim.attachments import Attachment
from tools.mailsim.faults import FaultRule
from tools.mailsim.records import KeyRecord, Message
from tools.mailsim.wire import Headers, Response

if TYPE_CHECKING:
    from tools.mailsim.simulator import Simulator


class Refusal(Exception):
    """An answer that ends a send request before anything is stored or any key is taken."""

    def __init__(self, response: Response, name: str, fault: str | None = None):
        super().__init__(name)
        self.response = response
        # Logged in /_sim/requests as the outcome of the request.
        self.name = name
        self.fault = fault


@dataclass
class Outcome:
    response: Response
    # Logged in /_sim/requests: "accepted", "replayed", "dropped" or the error name sent back.
    name: str
    message_id: str | None = None
    fault: str | None = None
    stall_seconds: float = 0.0


@dataclass(frozen=True)
class EmailRequest:
    """A valid send request, whatever wire it came over."""

    sender: str
    recipients: tuple[str, ...]
    subject: str
    text: str | None
    html: str | None
    fingerprint: str
    idempotency_key: str | None = None
    tags: list[Any] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    reply_to: list[str] = field(default_factory=list)
    message_stream: str | None = None
    attachments: tuple[Attachment, ...] = ()


class Wire(ABC):
    name: str

    @abstractmethod
    def read(self, sim: "Simulator", headers: Headers, body: bytes) -> EmailRequest:
        """Authenticate, then validate the key and the body; raise ``Refusal`` to answer early."""

    @abstractmethod
    def refuse(self, rule: FaultRule, email: EmailRequest) -> Refusal:
        """The answer of a refusing fault rule (503, 429, stall_then_reject, reject)."""

    @abstractmethod
    def new_message_id(self, sim: "Simulator") -> str: ...

    @abstractmethod
    def accepted(self, message: Message) -> Response: ...

    def logged_key(self, headers: Headers) -> str | None:
        """The idempotency key to log for a request refused before its body was read."""
        return None

    def key_window_seconds(self, sim: "Simulator") -> float | None:
        """How long a key is remembered; None for a wire without idempotency."""
        return None

    def answer_existing(self, record: KeyRecord, fingerprint: str) -> Outcome:
        """The answer to a key that is already taken (in flight or completed)."""
        raise NotImplementedError(f"{self.name} has no idempotency keys")


def secret_matches(given: str, expected: str) -> bool:
    # Constant time, so the simulator does not teach clients a timing attack by example.
    return hmac.compare_digest(given.encode(), expected.encode())
