"""free_port: the ports the tests' servers listen on, drawn so that two draws do not meet
before their servers bind them (tools/drill/processes.py)."""

import socket

import pytest

from tools.drill import processes
from tools.drill.processes import LISTEN_PORTS, free_port


def test_each_test_process_draws_from_its_own_share_and_never_repeats_a_recent_draw(monkeypatch):
    monkeypatch.setattr(processes, "_handed_out", [])
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    shares = {}
    for worker in ("gw0", "gw1", "gw2"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        shares[worker] = {free_port() for _ in range(40)}
        assert len(shares[worker]) == 40  # none handed out twice
    assert not shares["gw0"] & shares["gw1"]
    assert not shares["gw1"] & shares["gw2"]
    assert not shares["gw0"] & shares["gw2"]
    assert all(LISTEN_PORTS.start <= port < LISTEN_PORTS.stop for ports in shares.values() for port in ports)
    # below 30000: a RabbitMQ node's CLI tools listen on its distribution port + 10000 to + 10010
    assert LISTEN_PORTS.stop <= 30000


def test_a_port_in_use_or_handed_out_already_is_not_handed_out_and_none_left_is_an_error(monkeypatch):
    monkeypatch.setattr(processes, "_handed_out", [])
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    with socket.create_server(("127.0.0.1", 0)) as listening:
        in_use = listening.getsockname()[1]
        monkeypatch.setattr(processes, "LISTEN_PORTS", range(in_use, in_use + 1))
        with pytest.raises(RuntimeError, match="no free port"):
            free_port()
    with socket.create_server(("127.0.0.1", 0)) as closed_at_once:
        free = closed_at_once.getsockname()[1]
    monkeypatch.setattr(processes, "LISTEN_PORTS", range(free, free + 1))
    assert free_port() == free
    with pytest.raises(RuntimeError, match="no free port"):  # handed out, perhaps not bound yet
        free_port()
