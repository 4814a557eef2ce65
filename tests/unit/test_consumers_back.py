"""The cluster drill's reading of when the consumers that lost a killed node took messages
again (tools/drill/consumers_back.py), from logs written as our processes write them."""

import json
from datetime import UTC, datetime, timedelta

from tools.drill.consumers_back import consumers_back_after_kills

KILLED = datetime(2026, 12, 4, 17, 30, 8, 12000, tzinfo=UTC)


def _line(seconds_after_kill: float, process: int, message: str) -> str:
    at = (KILLED + timedelta(seconds=seconds_after_kill)).astimezone()  # logging writes local time
    stamp = at.strftime("%Y-%m-%d %H:%M:%S,") + f"{at.microsecond // 1000:03d}"
    return json.dumps({"time": stamp, "level": "INFO", "process": process, "message": message})


def test_each_consumer_that_lost_the_node_is_timed_to_its_reconnection_and_its_next_message(tmp_path):
    received = "Task messaging.handle_event[4352e9e5-2689-47ba-8278-228e2dca5f97] received"
    (tmp_path / "worker0.log").write_text(
        "\n".join(
            [
                _line(-0.5, 11, received),  # before the kill: not the one after it
                _line(0.06, 11, "consumer: Connection to broker lost. Trying to re-establish the connection"),
                "Traceback (most recent call last):",  # not a JSON line: skipped
                _line(0.22, 11, "Connected to amqp://guest:**@127.0.0.1:20293//"),
                _line(0.3, 12, received),  # another process of the same log (a restarted worker)
                _line(0.57, 11, received),
            ]
        )
    )
    # a relay that lost the node and was never connected again, and a worker that never lost it
    (tmp_path / "relay0.log").write_text(_line(0.05, 21, "consumer: Connection to broker lost."))
    (tmp_path / "worker1.log").write_text(_line(0.4, 31, received))
    kills: list[dict] = [
        {"killed_at": KILLED.isoformat()},
        {"killed_at": (KILLED + timedelta(seconds=40)).isoformat()},
    ]
    # when
    consumers_back_after_kills(tmp_path, kills)
    # then
    assert kills[0]["consumers_back"] == [
        {"log": "worker0", "process": 11, "seconds_to_connected": 0.22, "seconds_to_first_message": 0.57},
        {"log": "relay0", "process": 21, "seconds_to_connected": None, "seconds_to_first_message": None},
    ]
    assert kills[1]["consumers_back"] == []  # nobody lost its connection after the second kill
