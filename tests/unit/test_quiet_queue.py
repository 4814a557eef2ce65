"""How often a delivery asks its queue for company (messaging/worker/companions.py): every
time under load, less and less often while the queue stays empty, every time again as soon as
an ask finds a message."""

from messaging.worker.companions import _QuietQueue


def _asks(quiet: _QuietQueue, deliveries: int, *, finds: bool) -> int:
    asked = 0
    for _ in range(deliveries):
        if not quiet.skip():
            asked += 1
            quiet.found(finds)
    return asked


def test_under_load_every_delivery_asks():
    assert _asks(_QuietQueue(), 50, finds=True) == 50


def test_an_empty_queue_is_asked_ever_less_often_down_to_one_delivery_in_eight():
    quiet = _QuietQueue()
    # asks after 0, 1, 3, 7 skips, then every 8th: 1 + 1 + 1 + 1 + 1 + ...
    assert _asks(quiet, 1 + 2 + 4 + 8, finds=False) == 4
    assert _QuietQueue.SKIP_AT_MOST == 7
    assert _asks(quiet, 80, finds=False) == 10


def test_one_ask_that_finds_company_ends_the_quiet():
    quiet = _QuietQueue()
    _asks(quiet, 40, finds=False)
    while quiet.skip():
        pass
    quiet.found(True)
    assert _asks(quiet, 5, finds=True) == 5
