"""The simulator's send wires, black-box over real HTTP against a real ``python -m mailsim``
process."""

import threading
import uuid

import pytest
import requests

from tests.integration.mailsim_support import API_KEY, SimProcess


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    process = SimProcess(tmp_path_factory.mktemp("mailsim-wires") / "data")
    yield process
    process.stop()


@pytest.fixture(autouse=True)
def clean(sim):
    requests.post(f"{sim.url}/_sim/reset", timeout=5).raise_for_status()


@pytest.fixture
def spawn(tmp_path):
    started = []

    def start(*extra_args: str) -> SimProcess:
        started.append(SimProcess(tmp_path / "data", *extra_args))
        return started[-1]

    yield start
    for process in started:
        process.stop()


def messages(base, **filters):
    return requests.get(f"{base}/_sim/messages", params=filters, timeout=5).json()["messages"]


def set_faults(base, *rules):
    requests.post(f"{base}/_sim/faults", json={"rules": list(rules)}, timeout=5).raise_for_status()


# --- Resend: POST /emails ----------------------------------------------------------------------


def resend(base, body, key=None):
    headers = {"Authorization": f"Bearer {API_KEY}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return requests.post(f"{base}/emails", json=body, headers=headers, timeout=5)


def resend_email(**extra):
    return {"from": "shop@example.com", "to": ["alice@example.com"], "subject": "Order #1", **extra}


def test_resend_stores_tags_html_reply_to_and_headers_with_the_message(sim):
    body = resend_email(
        html="<p>Thanks!</p>",
        reply_to="help@example.com",
        headers={"X-Entity-Ref-ID": "order-1"},
        tags=[{"name": "category", "value": "order_confirmation"}, {"name": "order-id", "value": "A-1"}],
    )

    response = resend(sim.url, body)

    assert response.status_code == 200, response.text
    [stored] = messages(sim.url)
    assert stored["id"] == response.json()["id"]
    assert stored["wire"] == "resend"
    assert stored["html"] == "<p>Thanks!</p>"
    assert stored["text"] is None
    assert stored["reply_to"] == ["help@example.com"]
    assert stored["headers"] == {"X-Entity-Ref-ID": "order-1"}
    assert stored["tags"] == body["tags"]


@pytest.mark.parametrize(
    "tags",
    [
        [{"name": "has space", "value": "x"}],
        [{"name": "category", "value": "dot.not.allowed"}],
        [{"name": "x" * 257, "value": "y"}],
        [{"name": "", "value": "y"}],
        [{"name": "category"}],
        [{"name": "category", "value": "x", "extra": "y"}],
        [{"name": "naïve", "value": "x"}],
        {"name": "category", "value": "x"},
        [{"name": f"t{n}", "value": "x"} for n in range(76)],
    ],
)
def test_resend_tags_outside_the_documented_rules_are_422_validation_error(sim, tags):
    response = resend(sim.url, resend_email(text="Thanks!", tags=tags), key="tagged")

    assert response.status_code == 422
    assert response.json()["statusCode"] == 422
    assert response.json()["name"] == "validation_error"
    assert messages(sim.url) == []
    assert resend(sim.url, resend_email(text="Thanks!"), key="tagged").status_code == 200


def test_resend_tag_parts_of_256_characters_are_accepted(sim):
    tags = [{"name": "n" * 256, "value": "v" * 256}]
    assert resend(sim.url, resend_email(text="x", tags=tags)).status_code == 200


@pytest.mark.parametrize("field", [{"headers": {"X-Count": 1}}, {"headers": ["X-A"]}, {"reply_to": 5}])
def test_resend_headers_and_reply_to_of_the_wrong_type_are_422(sim, field):
    assert resend(sim.url, resend_email(text="x", **field)).status_code == 422


# --- Brevo: POST /v3/smtp/email ------------------------------------------------------------------


def brevo(base, body, api_key=API_KEY):
    headers = {} if api_key is None else {"api-key": api_key}
    return requests.post(f"{base}/v3/smtp/email", json=body, headers=headers, timeout=5)


def brevo_email(key=None, **extra):
    body = {
        "sender": {"email": "shop@example.com", "name": "Shop"},
        "to": [{"email": "alice@example.com", "name": "Alice"}],
        "subject": "Order #1 confirmed",
        "textContent": "Thanks!",
        **extra,
    }
    if key is not None:
        body["headers"] = {**body.get("headers", {}), "idempotencyKey": key}
    return body


def assert_brevo_error(response, status, code):
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"code", "message"}
    assert body["code"] == code
    assert body["message"]


def test_brevo_accepts_with_201_and_a_message_id_and_stores_tags_and_headers(sim):
    custom = '{"order_id": "A-1"}'
    body = brevo_email(
        htmlContent="<p>Thanks!</p>",
        tags=["order-confirmation"],
        headers={"X-Mailin-custom": custom},
        replyTo={"email": "help@example.com"},
    )

    response = brevo(sim.url, body)

    assert response.status_code == 201, response.text
    message_id = response.json()["messageId"]
    assert message_id.startswith("<")
    assert message_id.endswith("@smtp-relay.mailin.fr>")
    [stored] = messages(sim.url, wire="brevo")
    assert stored["id"] == message_id
    assert stored["to"] == ["alice@example.com"]
    assert stored["from"] == "shop@example.com"
    assert stored["html"] == "<p>Thanks!</p>"
    assert stored["tags"] == ["order-confirmation"]
    assert stored["headers"] == {"X-Mailin-custom": custom}
    assert stored["reply_to"] == ["help@example.com"]


@pytest.mark.parametrize("api_key", [None, "wrong"])
def test_brevo_missing_or_wrong_api_key_is_401_key_not_found(sim, api_key):
    response = brevo(sim.url, brevo_email(), api_key=api_key)

    assert_brevo_error(response, 401, "unauthorized")
    assert response.json()["message"] == "Key not found"
    assert messages(sim.url) == []


def test_brevo_ignores_a_resend_bearer_token(sim):
    response = requests.post(
        f"{sim.url}/v3/smtp/email",
        json=brevo_email(),
        headers={"Authorization": f"Bearer {API_KEY}"},
        timeout=5,
    )
    assert_brevo_error(response, 401, "unauthorized")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"to": [{"email": "a@example.com"}], "subject": "s", "textContent": "t"}, "missing_parameter"),
        (brevo_email(to=None), "missing_parameter"),
        (brevo_email(subject=None), "missing_parameter"),
        (brevo_email(textContent=None), "missing_parameter"),
        (brevo_email(to=[{"email": "not an address"}]), "invalid_parameter"),
        (brevo_email(to=[]), "invalid_parameter"),
        (brevo_email(to="alice@example.com"), "invalid_parameter"),
        (brevo_email(sender={"name": "no email"}), "invalid_parameter"),
        (brevo_email(tags="one"), "invalid_parameter"),
        (brevo_email(headers={"X-Count": 1}), "invalid_parameter"),
        (brevo_email(key="not-a-uuid"), "invalid_parameter"),
        (["not", "an", "object"], "invalid_parameter"),
    ],
)
def test_brevo_invalid_bodies_are_400_with_a_brevo_error(sim, body, code):
    assert_brevo_error(brevo(sim.url, body), 400, code)
    assert messages(sim.url) == []


def test_brevo_same_key_twice_is_400_duplicate_parameter_without_the_message_id(sim):
    key = str(uuid.uuid4())

    first = brevo(sim.url, brevo_email(key=key))
    again = brevo(sim.url, brevo_email(key=key))
    other_body = brevo(sim.url, brevo_email(key=key, subject="Something else"))

    assert first.status_code == 201
    for refused in (again, other_body):
        assert_brevo_error(refused, 400, "duplicate_parameter")
        assert first.json()["messageId"] not in refused.text
    assert [m["id"] for m in messages(sim.url)] == [first.json()["messageId"]]
    outcomes = [r["outcome"] for r in requests.get(f"{sim.url}/_sim/requests", timeout=5).json()["requests"]]
    assert outcomes == ["accepted", "duplicate_parameter", "duplicate_parameter"]


def test_brevo_key_is_refused_while_its_first_request_is_in_flight(sim):
    set_faults(sim.url, {"kind": "hold", "seconds": 1, "times": 1})
    key = str(uuid.uuid4())
    first = {}
    thread = threading.Thread(target=lambda: first.update(response=brevo(sim.url, brevo_email(key=key))))
    thread.start()
    wait_for_key_in_flight(sim.url, key)

    concurrent = brevo(sim.url, brevo_email(key=key))
    thread.join()

    assert_brevo_error(concurrent, 400, "duplicate_parameter")
    assert first["response"].status_code == 201
    assert len(messages(sim.url)) == 1


def wait_for_key_in_flight(base, key):
    for _ in range(250):
        records = requests.get(f"{base}/_sim/idempotency", timeout=5).json()["records"]
        if any(r["idempotency_key"] == key and r["state"] == "in_flight" for r in records):
            return
        threading.Event().wait(0.02)
    pytest.fail(f"key {key} never became in_flight")


def test_brevo_and_resend_keys_are_separate_even_with_the_same_string(sim):
    key = str(uuid.uuid4())
    assert brevo(sim.url, brevo_email(key=key)).status_code == 201
    assert resend(sim.url, resend_email(text="x"), key=key).status_code == 200
    records = requests.get(f"{sim.url}/_sim/idempotency", timeout=5).json()["records"]
    assert sorted(r["wire"] for r in records) == ["brevo", "resend"]


def test_brevo_key_is_usable_again_after_its_own_window(spawn):
    short = spawn("--brevo-idempotency-window-seconds", "60")
    key = str(uuid.uuid4())
    assert brevo(short.url, brevo_email(key=key)).status_code == 201

    requests.post(f"{short.url}/_sim/clock", json={"advance_seconds": 61}, timeout=5).raise_for_status()

    assert brevo(short.url, brevo_email(key=key)).status_code == 201
    assert len(messages(short.url)) == 2


def test_brevo_default_window_is_30_minutes_on_the_simulator_clock(sim):
    key = str(uuid.uuid4())
    brevo(sim.url, brevo_email(key=key))
    requests.post(f"{sim.url}/_sim/clock", json={"advance_seconds": 29 * 60}, timeout=5)
    assert_brevo_error(brevo(sim.url, brevo_email(key=key)), 400, "duplicate_parameter")
    requests.post(f"{sim.url}/_sim/clock", json={"advance_seconds": 60}, timeout=5)
    assert brevo(sim.url, brevo_email(key=key)).status_code == 201


@pytest.mark.parametrize(
    ("rule", "status", "code"),
    [
        ({"kind": "503", "retry_after": 4}, 503, "service_unavailable"),
        ({"kind": "429", "retry_after": 4}, 429, "too_many_requests"),
        ({"kind": "reject"}, 400, "invalid_parameter"),
    ],
)
def test_brevo_refusing_faults_answer_brevo_shaped_errors_and_leave_the_key_free(sim, rule, status, code):
    set_faults(sim.url, {**rule, "times": 1})
    key = str(uuid.uuid4())

    refused = brevo(sim.url, brevo_email(key=key))
    retried = brevo(sim.url, brevo_email(key=key))

    assert_brevo_error(refused, status, code)
    if "retry_after" in rule:
        assert refused.headers["Retry-After"] == "4"
    assert retried.status_code == 201


def test_brevo_accept_then_drop_stores_the_message_and_a_retry_is_a_duplicate(sim):
    set_faults(sim.url, {"kind": "accept_then_drop", "times": 1})
    key = str(uuid.uuid4())

    with pytest.raises(requests.ConnectionError):
        brevo(sim.url, brevo_email(key=key))
    retried = brevo(sim.url, brevo_email(key=key))

    assert len(messages(sim.url)) == 1
    assert_brevo_error(retried, 400, "duplicate_parameter")
