"""Waiting for what real processes do in their own time."""

import time

import requests


def wait_until(predicate, *, timeout: float, interval: float = 0.2, message: str = "condition"):
    """The first truthy value of `predicate()`, asked every `interval` seconds; an
    AssertionError naming `message` when `timeout` seconds pass without one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{message} not reached within {timeout}s")


def answers(url: str, **kwargs) -> bool:
    """Whether a server answers `url` without a server error (not yet: no connection, or
    no answer in time while its workers boot on a busy machine)."""
    try:
        return requests.get(url, timeout=2, **kwargs).status_code < 500
    except (requests.ConnectionError, requests.Timeout):
        return False
