"""Calls released together, each in its own thread: the races the tests of concurrent requests
stage against real web processes."""

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def at_once(calls: list[Callable[[], T]]) -> list[T]:
    """Each call's answer (in the order they came), all released by one barrier; an exception
    in any call fails the test."""
    start = threading.Barrier(len(calls))
    answers: list[T] = []
    errors: list[BaseException] = []

    def run(call: Callable[[], T]) -> None:
        try:
            start.wait(timeout=10)
            answers.append(call())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    return answers
