"""Durations as people type them on a command line: 30s, 15m, 2h, 1d."""

import re
from datetime import timedelta

_DURATION = re.compile(r"^(\d+)([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def duration_parse(text: str) -> timedelta:
    """Raises ValueError, with the accepted forms, for anything else."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ValueError(f"a duration like 30m, 2h or 1d, not {text!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def is_duration(text: str) -> bool:
    return _DURATION.match(text.strip()) is not None
