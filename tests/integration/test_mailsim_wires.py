"""The simulator's three send wires (Resend, Brevo, Postmark), black-box over real HTTP against a
real ``python -m tools.mailsim`` process; Postmark, Brevo and Resend also through the real Anymail
backends, so the answers are what Anymail's own code parses."""

import threading
import uuid

import pytest
import requests

from tests.integration.mailsim_support import API_KEY, SimProcess, anymail_send


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    process = SimProcess(tmp_path_factory.mktemp("mailsim-wires") / "data")
    yield process
    process.stop()


@pytest.fixture(autouse=True)
def clean(sim):
    requests.post(f"{sim.url}/_sim/reset", timeout=5).raise_for_status()


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
    first: dict[str, requests.Response] = {}
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


def test_brevo_key_is_usable_again_after_its_own_window(mailsim_spawn):
    short = mailsim_spawn("--brevo-idempotency-window-seconds", "60")
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


# --- Postmark: POST /email -------------------------------------------------------------------------


def postmark(base, body, token=API_KEY):
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["X-Postmark-Server-Token"] = token
    return requests.post(f"{base}/email", json=body, headers=headers, timeout=5)


def postmark_email(**extra):
    return {"From": "Shop <shop@example.com>", "To": "alice@example.com", "Subject": "Order #1", **extra}


def assert_postmark_error(response, status, error_code):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["ErrorCode"] == error_code
    assert body["Message"]


def test_postmark_accepts_with_200_and_a_uuid_message_id_and_stores_metadata_and_tag(sim):
    body = postmark_email(
        To="Alice <alice@example.com>, bob@example.org",
        TextBody="Thanks!",
        HtmlBody="<p>Thanks!</p>",
        Headers=[{"Name": "X-Order", "Value": "A-1"}],
        Metadata={"order_id": "A-1"},
        Tag="order-confirmation",
        MessageStream="outbound",
        TrackOpens=True,
    )

    response = postmark(sim.url, body)

    assert response.status_code == 200, response.text
    answer = response.json()
    assert set(answer) == {"To", "SubmittedAt", "MessageID", "ErrorCode", "Message"}
    assert (answer["ErrorCode"], answer["Message"]) == (0, "OK")
    assert str(uuid.UUID(answer["MessageID"])) == answer["MessageID"]
    [stored] = messages(sim.url, wire="postmark")
    assert stored["id"] == answer["MessageID"]
    assert stored["to"] == ["alice@example.com", "bob@example.org"]
    assert stored["metadata"] == {"order_id": "A-1"}
    assert stored["tags"] == ["order-confirmation"]
    assert stored["headers"] == {"X-Order": "A-1"}
    assert stored["message_stream"] == "outbound"


def test_postmark_has_no_idempotency_every_request_is_a_new_message(sim):
    first = postmark(sim.url, postmark_email(TextBody="x"))
    second = postmark(sim.url, postmark_email(TextBody="x"))
    assert first.json()["MessageID"] != second.json()["MessageID"]
    assert len(messages(sim.url)) == 2


@pytest.mark.parametrize("token", [None, "wrong"])
def test_postmark_missing_or_wrong_token_is_401_error_code_10(sim, token):
    assert_postmark_error(postmark(sim.url, postmark_email(TextBody="x"), token=token), 401, 10)
    assert messages(sim.url) == []


@pytest.mark.parametrize(
    "body",
    [
        postmark_email(),
        postmark_email(TextBody="x", To="not an address"),
        postmark_email(TextBody="x", To=""),
        postmark_email(TextBody="x", From=None),
        postmark_email(TextBody="x", Metadata={"nested": {"no": "pe"}}),
        postmark_email(TextBody="x", Headers={"X-A": "1"}),
        postmark_email(TextBody="x", TrackOpens="yes"),
        postmark_email(TextBody="x", TrackLinks="Always"),
        postmark_email(TextBody="x", To=", ".join(f"r{n}@example.com" for n in range(51))),
    ],
)
def test_postmark_invalid_requests_are_422_error_code_300(sim, body):
    assert_postmark_error(postmark(sim.url, body), 422, 300)
    assert messages(sim.url) == []


def test_postmark_reject_fault_is_422_inactive_recipient_406(sim):
    set_faults(sim.url, {"kind": "reject"})

    response = postmark(sim.url, postmark_email(TextBody="x", To="Alice@Example.com"))

    assert_postmark_error(response, 422, 406)
    assert "Found inactive addresses: alice@example.com." in response.json()["Message"]
    assert messages(sim.url) == []


# --- the real Anymail backends -------------------------------------------------------------------


def anymail_message(to="alice@example.com"):
    return {"subject": "Order #1 confirmed", "body": "Thanks!", "from_email": "shop@example.com", "to": [to]}


def test_anymail_postmark_backend_sends_through_the_simulator(sim):
    result = anymail_send(
        "anymail.backends.postmark.EmailBackend",
        {"POSTMARK_SERVER_TOKEN": API_KEY, "POSTMARK_API_URL": sim.url + "/"},
        anymail_message(),
        tags=["order-confirmation"],
        metadata={"order_id": "A-1"},
    )

    [stored] = messages(sim.url, wire="postmark")
    assert result == {"message_id": stored["id"], "recipients": {"alice@example.com": "sent"}}
    assert stored["metadata"] == {"order_id": "A-1"}
    assert stored["tags"] == ["order-confirmation"]


def test_anymail_postmark_backend_raises_recipients_refused_on_the_reject_fault(sim):
    set_faults(sim.url, {"kind": "reject"})

    result = anymail_send(
        "anymail.backends.postmark.EmailBackend",
        {"POSTMARK_SERVER_TOKEN": API_KEY, "POSTMARK_API_URL": sim.url + "/"},
        anymail_message(),
    )

    assert result["error"] == "AnymailRecipientsRefused"
    assert messages(sim.url) == []


def test_anymail_postmark_backend_reports_an_invalid_recipient_as_refused(sim):
    result = anymail_send(
        "anymail.backends.postmark.EmailBackend",
        {"POSTMARK_SERVER_TOKEN": API_KEY, "POSTMARK_API_URL": sim.url + "/"},
        anymail_message(to="alice@localhost"),
    )
    assert result["error"] == "AnymailRecipientsRefused"


def test_anymail_brevo_backend_sends_through_the_simulator(sim):
    result = anymail_send(
        "anymail.backends.brevo.EmailBackend",
        {"BREVO_API_KEY": API_KEY, "BREVO_API_URL": sim.url + "/v3/"},
        anymail_message(),
        tags=["order-confirmation"],
        metadata={"order_id": "A-1"},
    )

    [stored] = messages(sim.url, wire="brevo")
    assert result == {"message_id": stored["id"], "recipients": {"alice@example.com": "queued"}}
    assert stored["headers"] == {"X-Mailin-custom": '{"order_id": "A-1"}'}
    assert stored["tags"] == ["order-confirmation"]


def test_anymail_resend_backend_sends_through_the_simulator(sim):
    result = anymail_send(
        "anymail.backends.resend.EmailBackend",
        {"RESEND_API_KEY": API_KEY, "RESEND_API_URL": sim.url + "/"},
        anymail_message(),
        tags=["order-confirmation"],
        metadata={"order_id": "A-1"},
    )

    [stored] = messages(sim.url, wire="resend")
    assert result == {"message_id": stored["id"], "recipients": {"alice@example.com": "queued"}}
    # Anymail carries its tags and metadata in headers on this wire (Resend's tags allow fewer characters).
    assert stored["headers"] == {"X-Metadata": '{"order_id": "A-1"}', "X-Tags": '["order-confirmation"]'}
