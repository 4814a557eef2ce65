"""Fault rules that make the send wires misbehave the way real providers and networks do, and that
choose what happens to an accepted message afterwards (the webhook events that follow it).

Rules live in memory only: restarting the simulator clears them, so a crashed test run cannot leave
a later run talking to a broken provider. Rate draws come from a ``random.Random`` seeded per rule
list, so a given seed and request sequence always produces the same faults.
"""

import dataclasses
import math
import random
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Kinds that answer instead of the provider; nothing is stored and the idempotency key is not taken.
REFUSING_KINDS = frozenset({"503", "429", "stall_then_reject", "reject", "key_conflict"})
# Kinds that accept the send normally and only change the webhook events that follow it.
DELIVERY_KINDS = frozenset({"bounce", "complaint", "delay"})
KINDS = (
    "503",
    "429",
    "accept_then_drop",
    "stall",
    "stall_then_reject",
    "hold",
    "reject",
    "key_conflict",
    "bounce",
    "complaint",
    "delay",
)
DEFAULT_SECONDS = {"stall": 30.0, "stall_then_reject": 30.0, "hold": 2.0}
RETRY_AFTER_KINDS = frozenset({"503", "429", "stall_then_reject"})
COMMON_FIELDS = frozenset({"kind", "rate", "times", "to_contains"})
# Upper bound on sleeps so a typo cannot park a server thread for hours.
MAX_SECONDS = 3600.0


class FaultRuleError(ValueError):
    pass


@dataclass
class FaultRule:
    kind: str
    rate: float = 1.0
    times: int | None = None
    to_contains: str | None = None
    seconds: float | None = None
    retry_after: int | None = None

    def matches(self, recipients: Iterable[str]) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        return any(self.applies_to(address) for address in recipients)

    def applies_to(self, recipient: str) -> bool:
        """Whether ``to_contains`` selects this recipient (every recipient without it)."""
        return self.to_contains is None or self.to_contains in recipient

    def to_json(self) -> dict[str, Any]:
        payload = {"kind": self.kind, "rate": self.rate, "times": self.times, "to_contains": self.to_contains}
        if self.seconds is not None:
            payload["seconds"] = self.seconds
        if self.retry_after is not None:
            payload["retry_after"] = self.retry_after
        return payload


def parse_rules(payload: dict[str, Any]) -> tuple[list[FaultRule], int]:
    rules = payload.get("rules")
    if not isinstance(rules, list):
        raise FaultRuleError("`rules` must be a list of rule objects.")
    seed = payload.get("seed", 0)
    if not _is_int(seed):
        raise FaultRuleError("`seed` must be an integer.")
    return [parse_rule(raw, index) for index, raw in enumerate(rules)], seed


def parse_rule(raw: Any, index: int) -> FaultRule:
    where = f"rules[{index}]"
    if not isinstance(raw, dict):
        raise FaultRuleError(f"{where} must be an object.")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise FaultRuleError(f"{where}.kind must be one of {', '.join(KINDS)}; got {kind!r}.")
    allowed = _allowed_fields(kind)
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise FaultRuleError(f"{where} has fields not valid for kind {kind!r}: {', '.join(unknown)}.")
    return FaultRule(
        kind=kind,
        rate=_number(raw.get("rate", 1.0), f"{where}.rate", 0.0, 1.0),
        times=_optional_count(raw.get("times"), f"{where}.times"),
        to_contains=_optional_text(raw.get("to_contains"), f"{where}.to_contains"),
        seconds=_seconds(raw, kind, where),
        retry_after=_retry_after(raw, kind, where),
    )


def _allowed_fields(kind: str) -> frozenset[str]:
    extra = set()
    if kind in DEFAULT_SECONDS:
        extra.add("seconds")
    if kind in RETRY_AFTER_KINDS:
        extra.add("retry_after")
    return COMMON_FIELDS | extra


def _seconds(raw: dict[str, Any], kind: str, where: str) -> float | None:
    if kind not in DEFAULT_SECONDS:
        return None
    return _number(raw.get("seconds", DEFAULT_SECONDS[kind]), f"{where}.seconds", 0.0, MAX_SECONDS)


def _retry_after(raw: dict[str, Any], kind: str, where: str) -> int | None:
    if kind not in RETRY_AFTER_KINDS:
        return None
    value = raw.get("retry_after", 1)
    if not _is_int(value) or value < 0:
        raise FaultRuleError(f"{where}.retry_after must be a non-negative integer (Retry-After seconds).")
    return value


def _number(value: Any, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise FaultRuleError(f"{where} must be a number.")
    if not low <= value <= high:
        raise FaultRuleError(f"{where} must be between {low:g} and {high:g}.")
    return float(value)


def _optional_count(value: Any, where: str) -> int | None:
    if value is not None and (not _is_int(value) or value < 0):
        raise FaultRuleError(f"{where} must be null or a non-negative integer.")
    return value


def _optional_text(value: Any, where: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise FaultRuleError(f"{where} must be null or a non-empty string.")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class FaultBook:
    """The active rule list, shared by all request threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []
        self._seed = 0
        self._random = random.Random(0)

    def replace(self, payload: dict[str, Any]) -> None:
        rules, seed = parse_rules(payload)
        with self._lock:
            self._rules, self._seed, self._random = rules, seed, random.Random(seed)

    def clear(self) -> None:
        with self._lock:
            self._rules, self._seed, self._random = [], 0, random.Random(0)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"seed": self._seed, "rules": [rule.to_json() for rule in self._rules]}

    def pick(self, recipients: Iterable[str]) -> FaultRule | None:
        """Return a copy of the first matching rule that fires, consuming one of its ``times``."""
        recipients = tuple(recipients)
        with self._lock:
            for rule in self._rules:
                if not rule.matches(recipients) or self._random.random() >= rule.rate:
                    continue
                if rule.times is not None:
                    rule.times -= 1
                return dataclasses.replace(rule)
        return None
