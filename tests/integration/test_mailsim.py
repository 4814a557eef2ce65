"""Black-box tests of the mail-provider simulator: a real ``python -m tools.mailsim`` process over HTTP."""

import http.client
import signal
import threading
import time
from urllib.parse import urlsplit

import pytest
import requests

from tests.integration.mailsim_support import API_KEY, SimProcess


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    process = SimProcess(tmp_path_factory.mktemp("mailsim") / "data")
    yield process
    process.stop()


@pytest.fixture(autouse=True)
def clean(sim):
    requests.post(f"{sim.url}/_sim/reset", timeout=5).raise_for_status()


def email(to="alice@example.com", subject="Order #1 confirmed", **extra):
    return {"from": "shop@example.com", "to": to, "subject": subject, "text": "Thanks!", **extra}


def send(base, body=None, key=None, api_key=API_KEY, event_id=None, timeout=5.0):
    headers = {"Authorization": f"Bearer {api_key}"} if api_key is not None else {}
    if key is not None:
        headers["Idempotency-Key"] = key
    if event_id is not None:
        headers["X-Event-Id"] = event_id
    return requests.post(
        f"{base}/emails", json=email() if body is None else body, headers=headers, timeout=timeout
    )


def messages(base, **filters):
    response = requests.get(f"{base}/_sim/messages", params=filters, timeout=5)
    response.raise_for_status()
    return response.json()["messages"]


def logged_requests(base):
    return requests.get(f"{base}/_sim/requests", timeout=5).json()["requests"]


def set_faults(base, *rules, seed=None):
    payload = {"rules": list(rules)} if seed is None else {"rules": list(rules), "seed": seed}
    response = requests.post(f"{base}/_sim/faults", json=payload, timeout=5)
    assert response.status_code == 200, response.text
    return response.json()


def advance_clock(base, seconds):
    requests.post(f"{base}/_sim/clock", json={"advance_seconds": seconds}, timeout=5).raise_for_status()


def wait_for_in_flight(base, key, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = requests.get(f"{base}/_sim/idempotency", timeout=5).json()["records"]
        if any(r["idempotency_key"] == key and r["state"] == "in_flight" for r in records):
            return
        time.sleep(0.02)
    pytest.fail(f"key {key!r} never became in_flight")


def post_in_background(base, key, timeout=10.0):
    result = {}

    def run():
        try:
            result["response"] = send(base, key=key, timeout=timeout)
        except requests.RequestException as exc:
            result["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def assert_error(response, status, name):
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert body["statusCode"] == status
    assert body["name"] == name
    assert isinstance(body["message"], str)
    assert body["message"]


# --- sending and listing ---------------------------------------------------------------------------


def test_accepted_email_gets_an_id_and_is_listed_with_recipients_and_event_id(sim):
    response = send(sim.url, email(to=["alice@example.com", "bob@example.org"]), key="k-1", event_id="evt-1")

    assert response.status_code == 200
    message_id = response.json()["id"]
    assert message_id.startswith("msg_")
    assert "Idempotent-Replayed" not in response.headers
    [listed] = messages(sim.url)
    assert listed["id"] == message_id
    assert listed["to"] == ["alice@example.com", "bob@example.org"]
    assert listed["subject"] == "Order #1 confirmed"
    assert listed["idempotency_key"] == "k-1"
    assert listed["event_id"] == "evt-1"
    assert listed["accepted_at"].endswith("Z")


def test_requests_without_a_key_always_create_a_new_message(sim):
    first, second = send(sim.url), send(sim.url)

    assert first.json()["id"] != second.json()["id"]
    assert [m["idempotency_key"] for m in messages(sim.url)] == [None, None]


def test_messages_can_be_filtered_by_key_and_recipient(sim):
    send(sim.url, email(to="alice@example.com"), key="a")
    send(sim.url, email(to=["carol@example.com", "bob@example.com"]), key="b")

    assert [m["idempotency_key"] for m in messages(sim.url, idempotency_key="b")] == ["b"]
    assert [m["idempotency_key"] for m in messages(sim.url, to="Bob@example.com")] == ["b"]
    assert messages(sim.url, to="nobody@example.com") == []


def test_keep_alive_connection_serves_several_requests(sim):
    connection = http.client.HTTPConnection(urlsplit(sim.url).netloc, timeout=5)
    try:
        answers, sockets = [], []
        for _ in range(3):
            connection.request("GET", "/_sim/health")
            response = connection.getresponse()
            answers.append((response.status, response.read(), response.will_close))
            sockets.append(connection.sock)
    finally:
        connection.close()
    assert answers == [(200, b'{"ok":true}', False)] * 3
    assert sockets[0] is sockets[1] is sockets[2]


# --- idempotency ---------------------------------------------------------------------------------------


def test_same_key_same_body_replays_the_same_id_and_stores_nothing(sim):
    first = send(sim.url, key="order-1-confirmation")
    replay = send(sim.url, key="order-1-confirmation")

    assert replay.status_code == 200
    assert replay.content == first.content
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert len(messages(sim.url)) == 1


def test_same_key_different_body_is_409_invalid_idempotent_request(sim):
    send(sim.url, email(subject="first"), key="k")

    response = send(sim.url, email(subject="second"), key="k")

    assert_error(response, 409, "invalid_idempotent_request")
    assert [m["subject"] for m in messages(sim.url)] == ["first"]


def test_a_key_conflict_fault_answers_as_a_key_held_for_another_email_and_stores_nothing(sim):
    set_faults(sim.url, {"kind": "key_conflict", "to_contains": "conflict", "times": 1})

    response = send(sim.url, email(to=["conflict@example.com"]), key="k-conflict")

    assert_error(response, 409, "invalid_idempotent_request")
    assert messages(sim.url) == []


def test_concurrent_request_while_key_is_held_gets_409_and_only_the_first_is_stored(sim):
    set_faults(sim.url, {"kind": "hold", "seconds": 1, "times": 1})
    thread, first = post_in_background(sim.url, "held")
    wait_for_in_flight(sim.url, "held")

    concurrent = send(sim.url, key="held")
    thread.join()

    assert_error(concurrent, 409, "concurrent_idempotent_requests")
    assert first["response"].status_code == 200
    assert [m["id"] for m in messages(sim.url)] == [first["response"].json()["id"]]
    assert send(sim.url, key="held").json() == first["response"].json()


def test_key_is_replayed_inside_the_window_and_reusable_after_it_on_the_simulator_clock(sim):
    first_id = send(sim.url, key="daily").json()["id"]

    advance_clock(sim.url, 23 * 3600)
    inside = send(sim.url, key="daily")
    advance_clock(sim.url, 3600 + 1)
    after = send(sim.url, key="daily")

    assert inside.json()["id"] == first_id

    assert inside.headers["Idempotent-Replayed"] == "true"
    assert after.status_code == 200
    assert "Idempotent-Replayed" not in after.headers
    assert after.json()["id"] != first_id
    assert len(messages(sim.url)) == 2
    clock = requests.get(f"{sim.url}/_sim/clock", timeout=5).json()
    assert clock["offset_seconds"] == 24 * 3600 + 1


def test_many_simultaneous_requests_with_one_key_store_exactly_one_message(sim):
    results = []
    threads = [threading.Thread(target=lambda: results.append(send(sim.url, key="race"))) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    [stored] = messages(sim.url)
    for response in results:
        if response.status_code == 409:
            assert response.json()["name"] == "concurrent_idempotent_requests"
        else:
            assert response.json() == {"id": stored["id"]}


@pytest.mark.parametrize("key", ["", "x" * 257])
def test_idempotency_key_outside_1_to_256_chars_is_400(sim, key):
    assert_error(send(sim.url, key=key), 400, "invalid_idempotency_key")
    assert messages(sim.url) == []


# --- auth and validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(("api_key", "name"), [(None, "missing_api_key"), ("wrong", "invalid_api_key")])
def test_missing_or_wrong_api_key_is_401(sim, api_key, name):
    assert_error(send(sim.url, api_key=api_key, key="k"), 401, name)
    assert messages(sim.url) == []


def test_bad_recipient_is_422_and_does_not_consume_the_key(sim):
    rejected = send(sim.url, email(to=["ok@example.com", "not an address"]), key="fix-me")
    fixed = send(sim.url, email(to=["ok@example.com", "fixed@example.com"]), key="fix-me")

    assert_error(rejected, 422, "validation_error")
    assert fixed.status_code == 200
    assert "Idempotent-Replayed" not in fixed.headers
    assert [m["to"] for m in messages(sim.url)] == [["ok@example.com", "fixed@example.com"]]


@pytest.mark.parametrize(
    "body",
    [
        {"to": "a@example.com", "subject": "s", "text": "t"},
        {"from": "shop@example.com", "subject": "s", "text": "t"},
        {"from": "shop@example.com", "to": "a@example.com", "text": "t"},
        email(to="a@@example.com"),
        email(to="@example.com"),
        email(to="a@localhost"),
        email(to=[]),
        ["not", "an", "object"],
    ],
)
def test_invalid_bodies_are_422_validation_error(sim, body):
    assert_error(send(sim.url, body), 422, "validation_error")


def test_non_json_body_is_422(sim):
    response = requests.post(
        f"{sim.url}/emails", data=b"{nope", headers={"Authorization": f"Bearer {API_KEY}"}, timeout=5
    )
    assert_error(response, 422, "validation_error")


# --- faults --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "status", "name", "retry_after"),
    [
        ({"kind": "503", "retry_after": 7}, 503, "service_unavailable", "7"),
        ({"kind": "503"}, 503, "service_unavailable", "1"),
        ({"kind": "429", "retry_after": 3}, 429, "rate_limit_exceeded", "3"),
    ],
)
def test_transient_faults_send_retry_after_store_nothing_and_leave_the_key_free(
    sim, rule, status, name, retry_after
):
    set_faults(sim.url, {**rule, "times": 1})

    refused = send(sim.url, key="retry-me")
    retried = send(sim.url, key="retry-me")

    assert_error(refused, status, name)
    assert refused.headers["Retry-After"] == retry_after
    assert retried.status_code == 200
    assert "Idempotent-Replayed" not in retried.headers
    assert len(messages(sim.url)) == 1


def test_accept_then_drop_closes_the_connection_but_the_message_is_stored(sim):
    set_faults(sim.url, {"kind": "accept_then_drop", "times": 1})

    with pytest.raises(requests.ConnectionError):
        send(sim.url, key="dropped")
    [stored] = messages(sim.url)
    retried = send(sim.url, key="dropped")

    assert stored["idempotency_key"] == "dropped"
    assert retried.json()["id"] == stored["id"]
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert len(messages(sim.url)) == 1


def test_stall_times_out_the_client_but_the_message_is_stored(sim):
    set_faults(sim.url, {"kind": "stall", "seconds": 2, "times": 1})

    with pytest.raises(requests.ReadTimeout):
        send(sim.url, key="slow", timeout=(2, 1))

    assert [m["idempotency_key"] for m in messages(sim.url)] == ["slow"]
    assert send(sim.url, key="slow").headers["Idempotent-Replayed"] == "true"


def test_stall_then_reject_answers_503_late_and_stores_nothing(sim):
    set_faults(sim.url, {"kind": "stall_then_reject", "seconds": 0.5, "times": 1})

    started = time.monotonic()
    response = send(sim.url, key="late")

    assert time.monotonic() - started >= 0.5
    assert_error(response, 503, "service_unavailable")
    assert messages(sim.url) == []
    assert send(sim.url, key="late").status_code == 200


def test_reject_fault_is_a_permanent_422_and_stores_nothing(sim):
    set_faults(sim.url, {"kind": "reject"})

    response = send(sim.url, key="bounce")

    assert_error(response, 422, "validation_error")
    assert response.json()["message"] == "The recipient address was rejected"
    assert messages(sim.url) == []


def test_times_limits_how_often_a_rule_fires_and_get_shows_what_is_left(sim):
    set_faults(sim.url, {"kind": "503", "times": 2})

    statuses = [send(sim.url).status_code for _ in range(3)]

    assert statuses == [503, 503, 200]
    [rule] = requests.get(f"{sim.url}/_sim/faults", timeout=5).json()["rules"]
    assert rule["times"] == 0


def test_to_contains_faults_only_matching_recipients(sim):
    set_faults(sim.url, {"kind": "reject", "to_contains": "@bounce.test"})

    assert send(sim.url, email(to="alice@example.com")).status_code == 200
    assert send(sim.url, email(to=["alice@example.com", "x@bounce.test"])).status_code == 422
    assert [m["to"] for m in messages(sim.url)] == [["alice@example.com"]]


def test_first_matching_rule_wins_and_rate_draws_repeat_for_a_seed(sim):
    rules = ({"kind": "429", "rate": 0.5}, {"kind": "503", "rate": 0.5})

    def run():
        set_faults(sim.url, *rules, seed=42)
        return [send(sim.url).status_code for _ in range(12)]

    first_run, second_run = run(), run()

    assert first_run == second_run
    assert {429, 503, 200} <= set(first_run)


def test_bad_fault_rules_are_400_and_keep_the_current_rules(sim):
    set_faults(sim.url, {"kind": "503"})

    for payload in (
        {"rules": [{"kind": "explode"}]},
        {"rules": [{"kind": "503", "rate": 2}]},
        {"rules": [{"kind": "reject", "seconds": 1}]},
        {"rules": "503"},
    ):
        response = requests.post(f"{sim.url}/_sim/faults", json=payload, timeout=5)
        assert_error(response, 400, "invalid_fault_rule")
    assert [r["kind"] for r in requests.get(f"{sim.url}/_sim/faults", timeout=5).json()["rules"]] == ["503"]


def test_delete_faults_clears_them(sim):
    set_faults(sim.url, {"kind": "503"})

    cleared = requests.delete(f"{sim.url}/_sim/faults", timeout=5)

    assert cleared.json()["rules"] == []
    assert send(sim.url).status_code == 200


# --- control API -----------------------------------------------------------------------------------------


def test_requests_log_shows_every_attempt_with_its_key_and_status(sim):
    set_faults(sim.url, {"kind": "503", "times": 1}, {"kind": "accept_then_drop", "times": 1})
    send(sim.url, key="k", event_id="evt-9")
    with pytest.raises(requests.ConnectionError):
        send(sim.url, key="k", event_id="evt-9")
    send(sim.url, key="k", event_id="evt-9")
    send(sim.url, key="k", api_key="wrong")

    log = logged_requests(sim.url)

    assert [(r["status"], r["outcome"]) for r in log] == [
        (503, "service_unavailable"),
        (0, "dropped"),
        (200, "replayed"),
        (401, "invalid_api_key"),
    ]
    assert {r["idempotency_key"] for r in log} == {"k"}
    assert [r["event_id"] for r in log[:3]] == ["evt-9"] * 3


def test_reset_clears_messages_keys_requests_faults_and_clock(sim):
    send(sim.url, key="k")
    advance_clock(sim.url, 60)
    set_faults(sim.url, {"kind": "503", "to_contains": "nobody"})

    assert requests.post(f"{sim.url}/_sim/reset", timeout=5).json() == {"ok": True}

    assert messages(sim.url) == []
    assert logged_requests(sim.url) == []
    assert requests.get(f"{sim.url}/_sim/idempotency", timeout=5).json()["records"] == []
    assert requests.get(f"{sim.url}/_sim/faults", timeout=5).json()["rules"] == []
    assert requests.get(f"{sim.url}/_sim/clock", timeout=5).json()["offset_seconds"] == 0
    assert "Idempotent-Replayed" not in send(sim.url, key="k").headers


def test_unknown_path_is_404_and_wrong_method_is_405(sim):
    assert_error(requests.get(f"{sim.url}/nowhere", timeout=5), 404, "not_found")
    wrong_method = requests.get(f"{sim.url}/emails", timeout=5)
    assert_error(wrong_method, 405, "method_not_allowed")
    assert wrong_method.headers["Allow"] == "POST"


def test_clock_only_moves_forward(sim):
    response = requests.post(f"{sim.url}/_sim/clock", json={"advance_seconds": -5}, timeout=5)
    assert_error(response, 400, "invalid_request")


# --- restarts ------------------------------------------------------------------------------------------


def test_state_survives_a_restart_and_a_replay_returns_the_same_id(mailsim_spawn, tmp_path):
    first = mailsim_spawn()
    message_id = send(first.url, key="durable").json()["id"]
    advance_clock(first.url, 90)
    set_faults(first.url, {"kind": "503"})

    assert first.stop(signal.SIGTERM) == 0
    second = mailsim_spawn()

    assert [m["id"] for m in messages(second.url)] == [message_id]
    replay = send(second.url, key="durable")
    assert replay.json()["id"] == message_id
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert requests.get(f"{second.url}/_sim/clock", timeout=5).json()["offset_seconds"] == 90
    assert requests.get(f"{second.url}/_sim/faults", timeout=5).json()["rules"] == []


def test_in_flight_keys_left_by_a_crash_are_released_at_start_up(mailsim_spawn):
    first = mailsim_spawn()
    set_faults(first.url, {"kind": "hold", "seconds": 30})
    thread, result = post_in_background(first.url, "orphan")
    wait_for_in_flight(first.url, "orphan")

    first.stop(signal.SIGKILL)
    thread.join()
    second = mailsim_spawn()

    assert isinstance(result.get("error"), requests.ConnectionError)
    assert requests.get(f"{second.url}/_sim/idempotency", timeout=5).json()["records"] == []
    retried = send(second.url, key="orphan")
    assert retried.status_code == 200
    assert "Idempotent-Replayed" not in retried.headers
    assert [m["idempotency_key"] for m in messages(second.url)] == ["orphan"]


def test_idempotency_window_is_configurable_on_the_command_line(mailsim_spawn):
    short = mailsim_spawn("--idempotency-window-seconds", "60")
    first_id = send(short.url, key="minute").json()["id"]

    advance_clock(short.url, 61)

    assert send(short.url, key="minute").json()["id"] != first_id


def test_sigint_also_stops_the_server_cleanly(mailsim_spawn):
    assert mailsim_spawn().stop(signal.SIGINT) == 0
