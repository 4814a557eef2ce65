"""The simulator's delivery webhooks, black-box: a real ``python -m tools.mailsim`` process posts to a real
stdlib HTTP server of the test. Resend's Svix signatures are checked with the real ``svix``
package and every wire's payloads with Anymail's own tracking webhook views."""

import base64
import json
import signal
import subprocess
import sys
import time
import uuid

import pytest
import requests
from svix.webhooks import Webhook, WebhookVerificationError

from tests.integration.mailsim_support import (
    API_KEY,
    SimProcess,
    WebhookReceiver,
    anymail_track,
)
from tests.waiting import wait_until
from tools.drill.processes import REPO, free_port


def svix_secret(key: bytes) -> str:
    return "whsec_" + base64.b64encode(key).decode()


SECRET = svix_secret(b"simulated resend signing key")
# Deliberately not Svix secrets: plain text, and the prefix with no key after it.
NOT_SVIX_SECRETS = ("plain-text", "whsec_")
BASIC_AUTH = "hooks:s3cret"
FAST = {"delivery_delay_seconds": 0.05, "retry_base_seconds": 0.05}


def webhook_args(receiver: WebhookReceiver) -> list[str]:
    return [
        "--webhook-url-resend",
        f"{receiver.url}/resend",
        "--webhook-url-brevo",
        f"{receiver.url}/brevo",
        "--webhook-url-postmark",
        f"{receiver.url}/postmark",
        "--resend-webhook-secret",
        SECRET,
        "--webhook-basic-auth",
        BASIC_AUTH,
    ]


@pytest.fixture(scope="module")
def receiver():
    server = WebhookReceiver()
    yield server
    server.close()


@pytest.fixture(scope="module")
def sim(tmp_path_factory, receiver):
    process = SimProcess(tmp_path_factory.mktemp("mailsim-webhooks") / "data", *webhook_args(receiver))
    yield process
    process.stop()


@pytest.fixture(autouse=True)
def clean(sim, receiver):
    requests.post(f"{sim.url}/_sim/reset", timeout=5).raise_for_status()
    receiver.clear()
    configure(sim, **FAST)


def configure(sim, **settings):
    response = requests.post(f"{sim.url}/_sim/webhooks", json=settings, timeout=5)
    assert response.status_code == 200, response.text
    return response.json()


def webhooks(sim, **filters):
    return requests.get(f"{sim.url}/_sim/webhooks", params=filters, timeout=5).json()


def set_faults(sim, *rules):
    requests.post(f"{sim.url}/_sim/faults", json={"rules": list(rules)}, timeout=5).raise_for_status()


def send_resend(sim, to="alice@example.com", key=None, **extra):
    headers = {"Authorization": f"Bearer {API_KEY}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    body = {"from": "Shop <shop@example.com>", "to": [to], "subject": "Order #1", "text": "Thanks!", **extra}
    response = requests.post(f"{sim.url}/emails", json=body, headers=headers, timeout=5)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def send_brevo(sim, to=("alice@example.com",), key=None, **extra):
    body = {
        "sender": {"email": "shop@example.com"},
        "to": [{"email": address} for address in to],
        "subject": "Order #1",
        "textContent": "Thanks!",
        **extra,
    }
    if key is not None:
        body["headers"] = {**body.get("headers", {}), "idempotencyKey": key}
    response = requests.post(f"{sim.url}/v3/smtp/email", json=body, headers={"api-key": API_KEY}, timeout=5)
    assert response.status_code == 201, response.text
    return response.json()["messageId"]


def send_postmark(sim, to="alice@example.com", **extra):
    body = {"From": "shop@example.com", "To": to, "Subject": "Order #1", "TextBody": "Thanks!", **extra}
    headers = {"X-Postmark-Server-Token": API_KEY}
    response = requests.post(f"{sim.url}/email", json=body, headers=headers, timeout=5)
    assert response.status_code == 200, response.text
    return response.json()["MessageID"]


def types(received, key="type"):
    return [one.json[key] for one in received]


def delivered_states(sim, count, timeout=10.0):
    """The deliveries once `count` of them are no longer pending."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        deliveries = webhooks(sim)["deliveries"]
        if sum(d["state"] != "pending" for d in deliveries) >= count:
            return deliveries
        time.sleep(0.05)
    pytest.fail(f"{count} deliveries expected to finish; got {webhooks(sim)['deliveries']}")


# --- Resend: Svix-signed events --------------------------------------------------------------------


def test_resend_events_are_svix_signed_and_verify_with_the_real_svix_package(sim, receiver):
    tags = [{"name": "category", "value": "order_confirmation"}]
    message_id = send_resend(sim, tags=tags, headers={"X-Entity-Ref-ID": "order-1"})

    received = receiver.wait_for(2, "/resend")

    verifier = Webhook(SECRET)
    for one in received:
        verifier.verify(one.body, one.headers)
        assert one.headers["svix-id"].startswith("msg_")
        assert abs(int(one.headers["svix-timestamp"]) - time.time()) < 60
    assert types(received) == ["email.sent", "email.delivered"]
    assert len({one.headers["svix-id"] for one in received}) == 2
    sent = received[0].json
    assert set(sent) == {"type", "created_at", "data"}
    assert sent["created_at"].endswith("Z")
    assert sent["data"]["email_id"] == message_id
    assert sent["data"]["from"] == "Shop <shop@example.com>"
    assert sent["data"]["to"] == ["alice@example.com"]
    assert sent["data"]["subject"] == "Order #1"
    assert sent["data"]["tags"] == {"category": "order_confirmation"}
    assert sent["data"]["headers"] == [{"name": "X-Entity-Ref-ID", "value": "order-1"}]


def test_a_tampered_resend_body_or_another_secret_fails_svix_verification(sim, receiver):
    send_resend(sim)
    one = receiver.wait_for(2, "/resend")[0]

    tampered = one.body.replace(b"alice@example.com", b"mallory@example.com")
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(tampered, one.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(svix_secret(b"another key")).verify(one.body, one.headers)


def test_resend_events_parse_with_anymails_resend_tracking_webhook(sim, receiver):
    message_id = send_resend(sim, headers={"X-Tags": '["confirmation"]', "X-Metadata": '{"order_id": "A-1"}'})
    received = receiver.wait_for(2, "/resend")

    results = anymail_track("resend", received, {"RESEND_SIGNING_SECRET": SECRET})

    assert [r["status"] for r in results] == [200, 200]
    events = [r["events"][0] for r in results]
    assert [e["event_type"] for e in events] == ["sent", "delivered"]
    assert {e["message_id"] for e in events} == {message_id}
    assert [e["event_id"] for e in events] == [one.headers["svix-id"] for one in received]
    assert {e["recipient"] for e in events} == {"alice@example.com"}
    assert events[1]["tags"] == ["confirmation"]
    assert events[1]["metadata"] == {"order_id": "A-1"}


def test_no_secret_means_unsigned_resend_events(sim, receiver):
    configure(sim, resend_secret=None)
    send_resend(sim)
    received = receiver.wait_for(2, "/resend")
    assert [one.headers["svix-id"].startswith("msg_") for one in received] == [True, True]
    assert not any("svix-signature" in one.headers for one in received)


# --- Brevo and Postmark: basic auth ----------------------------------------------------------------


def basic_auth(one):
    scheme, _, encoded = one.headers["authorization"].partition(" ")
    return scheme, base64.b64decode(encoded).decode()


def test_brevo_events_carry_basic_auth_and_the_fields_anymail_reads(sim, receiver):
    custom = '{"order_id": "A-1"}'
    message_id = send_brevo(sim, tags=["confirmation"], headers={"X-Mailin-custom": custom})

    received = receiver.wait_for(2, "/brevo")

    assert [basic_auth(one) for one in received] == [("Basic", BASIC_AUTH)] * 2
    assert types(received, "event") == ["request", "delivered"]
    for one in received:
        event = one.json
        assert event["email"] == "alice@example.com"
        assert event["message-id"] == message_id
        assert event["X-Mailin-custom"] == custom
        assert event["tags"] == ["confirmation"]
        assert isinstance(event["ts_epoch"], int)
        assert isinstance(event["ts_event"], int)
        assert event["date"]


def test_brevo_events_parse_with_anymails_brevo_tracking_webhook(sim, receiver):
    set_faults(sim, {"kind": "bounce", "to_contains": "bob@"})
    message_id = send_brevo(
        sim, to=("alice@example.com", "bob@example.com"), headers={"X-Mailin-custom": '{"order_id": "A-1"}'}
    )
    received = receiver.wait_for(4, "/brevo")

    results = anymail_track("brevo", received, {"WEBHOOK_SECRET": BASIC_AUTH})

    events = sorted((r["events"][0] for r in results), key=lambda e: (e["recipient"], e["event_type"]))
    assert [(e["recipient"], e["event_type"]) for e in events] == [
        ("alice@example.com", "delivered"),
        ("alice@example.com", "queued"),
        ("bob@example.com", "bounced"),
        ("bob@example.com", "queued"),
    ]
    assert {e["message_id"] for e in events} == {message_id}
    assert {json.dumps(e["metadata"]) for e in events} == {'{"order_id": "A-1"}'}
    assert events[2]["reject_reason"] == "bounced"


def test_postmark_delivery_carries_basic_auth_metadata_and_tag(sim, receiver):
    message_id = send_postmark(sim, Metadata={"order_id": "A-1"}, Tag="confirmation")

    [one] = receiver.wait_for(1, "/postmark")

    assert basic_auth(one) == ("Basic", BASIC_AUTH)
    event = one.json
    assert event["RecordType"] == "Delivery"
    assert event["MessageID"] == message_id
    assert event["Recipient"] == "alice@example.com"
    assert event["Metadata"] == {"order_id": "A-1"}
    assert event["Tag"] == "confirmation"
    assert event["DeliveredAt"].endswith("Z")


def test_postmark_events_parse_with_anymails_postmark_tracking_webhook(sim, receiver):
    set_faults(sim, {"kind": "complaint"})
    message_id = send_postmark(sim, Metadata={"order_id": "A-1"}, Tag="confirmation")
    received = receiver.wait_for(2, "/postmark")

    results = anymail_track("postmark", received, {"WEBHOOK_SECRET": BASIC_AUTH})

    events = [r["events"][0] for r in results]
    assert [e["event_type"] for e in events] == ["delivered", "complained"]
    assert {e["message_id"] for e in events} == {message_id}
    assert events[1]["reject_reason"] == "spam"
    assert events[1]["event_id"] == str(received[1].json["ID"])
    assert all(e["metadata"] == {"order_id": "A-1"} and e["tags"] == ["confirmation"] for e in events)


def test_anymail_refuses_a_brevo_event_without_the_basic_auth(sim, receiver):
    configure(sim, basic_auth="someone:else")
    send_brevo(sim)
    received = receiver.wait_for(2, "/brevo")
    [result] = anymail_track("brevo", received[:1], {"WEBHOOK_SECRET": BASIC_AUTH})
    assert result["status"] == 400


# --- what follows a send: the fault kinds bounce, complaint, delay --------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("bounce", ["email.sent", "email.bounced"]),
        ("complaint", ["email.sent", "email.delivered", "email.complained"]),
        ("delay", ["email.sent", "email.delivery_delayed", "email.delivered"]),
    ],
)
def test_resend_event_sequence_follows_the_rule_that_matched(sim, receiver, kind, expected):
    set_faults(sim, {"kind": kind, "times": 1})

    send_resend(sim)
    received = receiver.wait_for(len(expected), "/resend")

    assert types(received) == expected
    if kind == "bounce":
        bounce = received[1].json["data"]["bounce"]
        assert (bounce["type"], bounce["subType"]) == ("Permanent", "General")
        assert bounce["message"]
    send_resend(sim)
    assert types(receiver.wait_for(len(expected) + 2, "/resend")[len(expected) :]) == [
        "email.sent",
        "email.delivered",
    ]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("bounce", [("Bounce", "HardBounce")]),
        ("complaint", [("Delivery", None), ("SpamComplaint", "SpamComplaint")]),
        ("delay", [("Bounce", "Transient"), ("Delivery", None)]),
    ],
)
def test_postmark_records_follow_the_rule_that_matched(sim, receiver, kind, expected):
    set_faults(sim, {"kind": kind})

    send_postmark(sim)
    received = receiver.wait_for(len(expected), "/postmark")

    assert [(one.json["RecordType"], one.json.get("Type")) for one in received] == expected
    for one in received:
        if one.json["RecordType"] != "Delivery":
            assert isinstance(one.json["ID"], int)
            assert one.json["Email"] == "alice@example.com"
            assert one.json["BouncedAt"]


def test_brevo_complaint_only_for_the_recipients_the_rule_names(sim, receiver):
    set_faults(sim, {"kind": "complaint", "to_contains": "bob@"})

    send_brevo(sim, to=("alice@example.com", "bob@example.com"))
    received = receiver.wait_for(5, "/brevo")

    by_recipient: dict[str, list[str]] = {}
    for one in received:
        by_recipient.setdefault(one.json["email"], []).append(one.json["event"])
    assert by_recipient == {
        "alice@example.com": ["request", "delivered"],
        "bob@example.com": ["request", "delivered", "spam"],
    }


def test_delivery_fault_kinds_accept_the_send_and_are_logged(sim, receiver):
    set_faults(sim, {"kind": "bounce"})
    message_id = send_resend(sim)
    [entry] = requests.get(f"{sim.url}/_sim/requests", timeout=5).json()["requests"]
    assert (entry["status"], entry["outcome"], entry["fault"]) == (200, "accepted", "bounce")
    assert [m["id"] for m in requests.get(f"{sim.url}/_sim/messages", timeout=5).json()["messages"]] == [
        message_id
    ]
    receiver.wait_for(2, "/resend")


def test_delivery_fault_kinds_reject_extra_fields(sim):
    response = requests.post(
        f"{sim.url}/_sim/faults", json={"rules": [{"kind": "bounce", "seconds": 1}]}, timeout=5
    )
    assert response.status_code == 400
    assert response.json()["name"] == "invalid_fault_rule"


# --- delivery: retries, giving up, duplicates, order ----------------------------------------------


def test_a_receiver_failing_twice_gets_the_event_on_the_third_attempt(sim, receiver):
    receiver.answer_with(500, 500)

    send_postmark(sim)
    received = receiver.wait_for(3, "/postmark")
    [delivery] = delivered_states(sim, 1)

    assert [one.status for one in received] == [500, 500, 200]
    assert len({one.body for one in received}) == 1
    assert (delivery["state"], delivery["attempts"], delivery["last_status"]) == ("delivered", 3, 200)
    assert delivery["delivered_at"].endswith("Z")


def test_resend_retries_keep_the_svix_id_and_sign_each_attempt(sim, receiver):
    receiver.answer_with(503)
    send_resend(sim)
    received = receiver.wait_for(3, "/resend")
    first, retried = received[0], next(r for r in received[1:] if r.json["type"] == "email.sent")
    assert retried.headers["svix-id"] == first.headers["svix-id"]
    Webhook(SECRET).verify(retried.body, retried.headers)


def test_a_delivery_is_given_up_after_max_attempts(sim, receiver):
    configure(sim, max_attempts=3)
    receiver.answer_with(500, 500, 500, 500)

    send_postmark(sim)
    [delivery] = delivered_states(sim, 1)

    assert (delivery["state"], delivery["attempts"], delivery["last_status"]) == ("given_up", 3, 500)
    assert len(receiver.received("/postmark")) == 3


def test_a_connection_error_is_retried_and_recorded(sim):
    configure(sim, urls={"postmark": f"http://127.0.0.1:{free_port()}/nobody"}, max_attempts=2)

    send_postmark(sim)
    [delivery] = delivered_states(sim, 1)

    assert (delivery["state"], delivery["attempts"], delivery["last_status"]) == ("given_up", 2, None)
    assert "refused" in delivery["last_error"].lower()


def test_duplicate_rate_one_posts_every_event_twice_with_the_same_id(sim, receiver):
    configure(sim, duplicate_rate=1.0)

    send_resend(sim)
    received = receiver.wait_for(4, "/resend")

    ids = [one.headers["svix-id"] for one in received]
    assert types(received) == ["email.sent", "email.sent", "email.delivered", "email.delivered"]
    assert ids[0] == ids[1] != ids[2] == ids[3]
    assert received[0].body == received[1].body
    for one in received:
        Webhook(SECRET).verify(one.body, one.headers)
    listed = delivered_states(sim, 4)
    assert [d["event_id"] for d in listed] == ids


def test_reorder_posts_a_messages_events_in_reverse_order(sim, receiver):
    configure(sim, reorder=True, delivery_delay_seconds=0.2)

    send_resend(sim)
    received = receiver.wait_for(2, "/resend")

    assert types(received) == ["email.delivered", "email.sent"]
    sent_at, delivered_at = (received[1].json["created_at"], received[0].json["created_at"])
    assert sent_at < delivered_at


def test_the_delivery_delay_separates_sent_from_delivered(sim, receiver):
    configure(sim, delivery_delay_seconds=0.6)

    send_resend(sim)
    [sent] = receiver.wait_for(1, "/resend")
    arrived_first = time.monotonic()
    receiver.wait_for(2, "/resend")

    assert time.monotonic() - arrived_first >= 0.4
    assert sent.json["type"] == "email.sent"


def test_an_advanced_simulator_clock_does_not_delay_or_break_webhooks(sim, receiver):
    requests.post(f"{sim.url}/_sim/clock", json={"advance_seconds": 3 * 86400}, timeout=5).raise_for_status()

    send_resend(sim)
    received = receiver.wait_for(2, "/resend", timeout=5)

    for one in received:
        Webhook(SECRET).verify(one.body, one.headers)
    assert received[0].json["created_at"] > time.strftime(
        "%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 86400)
    )


# --- which sends have webhooks ---------------------------------------------------------------------


def test_a_wire_without_a_url_posts_nothing(sim, receiver):
    configure(sim, urls={"postmark": None})

    send_postmark(sim)
    send_resend(sim)
    receiver.wait_for(2, "/resend")

    assert receiver.received("/postmark") == []
    assert {d["wire"] for d in webhooks(sim)["deliveries"]} == {"resend"}


def test_replays_and_refused_duplicates_post_no_more_events(sim, receiver):
    send_resend(sim, key="order-1")
    send_resend(sim, key="order-1")
    key = str(uuid.uuid4())
    send_brevo(sim, key=key)
    duplicate = requests.post(
        f"{sim.url}/v3/smtp/email",
        json={
            "sender": {"email": "shop@example.com"},
            "to": [{"email": "alice@example.com"}],
            "subject": "Order #1",
            "textContent": "Thanks!",
            "headers": {"idempotencyKey": key},
        },
        headers={"api-key": API_KEY},
        timeout=5,
    )

    assert duplicate.status_code == 400
    assert len(delivered_states(sim, 4)) == 4


def test_deliveries_can_be_filtered_by_message_and_wire(sim, receiver):
    resend_id = send_resend(sim)
    send_postmark(sim)
    delivered_states(sim, 3)

    assert {d["message_id"] for d in webhooks(sim, message_id=resend_id)["deliveries"]} == {resend_id}
    assert [d["type"] for d in webhooks(sim, wire="postmark")["deliveries"]] == ["Delivery"]


# --- settings ----------------------------------------------------------------------------------------


def test_settings_show_the_start_up_values_and_change_at_runtime(sim, receiver):
    shown = webhooks(sim)
    assert shown["urls"] == {
        "resend": f"{receiver.url}/resend",
        "brevo": f"{receiver.url}/brevo",
        "postmark": f"{receiver.url}/postmark",
    }
    assert (shown["resend_secret"], shown["basic_auth"]) == (SECRET, BASIC_AUTH)
    assert (shown["max_attempts"], shown["duplicate_rate"], shown["reorder"], shown["seed"]) == (
        10,
        0.0,
        False,
        0,
    )

    changed = configure(sim, urls={"brevo": "http://127.0.0.1:9/elsewhere"}, seed=7, reorder=True)

    assert changed["urls"]["brevo"] == "http://127.0.0.1:9/elsewhere"
    assert changed["urls"]["resend"] == f"{receiver.url}/resend"
    assert (changed["seed"], changed["reorder"]) == (7, True)


def test_reset_restores_the_start_up_settings_and_drops_pending_deliveries(sim, receiver):
    configure(sim, delivery_delay_seconds=30, duplicate_rate=0.5)
    send_resend(sim)
    receiver.wait_for(1, "/resend")

    requests.post(f"{sim.url}/_sim/reset", timeout=5).raise_for_status()

    shown = webhooks(sim)
    assert shown["deliveries"] == []
    assert (shown["delivery_delay_seconds"], shown["duplicate_rate"]) == (0.5, 0.0)
    assert shown["retry_base_seconds"] == 0.5


@pytest.mark.parametrize(
    "settings",
    [
        {"urls": {"resend": "ftp://example.com/hook"}},
        {"urls": {"resend": "http://user:pw@example.com/hook"}},
        {"urls": {"sendgrid": "http://example.com/hook"}},
        {"urls": "http://example.com/hook"},
        *({"resend_secret": value} for value in NOT_SVIX_SECRETS),
        {"basic_auth": "no-colon"},
        {"delivery_delay_seconds": -1},
        {"duplicate_rate": 1.5},
        {"reorder": "yes"},
        {"seed": 1.5},
        {"max_attempts": 0},
        {"retry_base_seconds": 0},
        {"retry_base_seconds": True},
        {"unknown": 1},
        {"duplicate_rate": 0.5, "max_attempts": 0},
    ],
)
def test_invalid_settings_are_400_with_the_reason_and_change_nothing(sim, settings):
    before = webhooks(sim)

    response = requests.post(f"{sim.url}/_sim/webhooks", json=settings, timeout=5)

    assert response.status_code == 400
    assert response.json()["name"] == "invalid_webhook_settings"
    assert response.json()["message"]
    assert webhooks(sim) == before


def test_an_invalid_secret_on_the_command_line_stops_the_start(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            *("-m", "tools.mailsim", "--port", "0", "--data-dir", str(tmp_path / "data")),
            "--resend-webhook-secret",
            "x",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "resend_secret" in done.stderr


# --- restarts ---------------------------------------------------------------------------------------


def test_a_restarted_simulator_continues_a_pending_delivery(mailsim_spawn, receiver):
    first = mailsim_spawn(*webhook_args(receiver))
    configure(first, delivery_delay_seconds=1.5)
    message_id = send_resend(first)
    receiver.wait_for(1, "/resend")
    # Killed before it wrote down a 200 it received, the simulator posts that event again on
    # restart (at least once, as providers do); here it is killed after, so only the pending
    # "delivered" is left to continue.
    wait_until(
        lambda: [d["state"] for d in webhooks(first)["deliveries"]] == ["delivered", "pending"],
        timeout=5,
        message="email.sent recorded as delivered, email.delivered pending",
    )

    first.stop(signal.SIGKILL)
    second = mailsim_spawn(*webhook_args(receiver))
    received = receiver.wait_for(2, "/resend", timeout=10)

    assert types(received) == ["email.sent", "email.delivered"]
    assert received[1].json["data"]["email_id"] == message_id
    Webhook(SECRET).verify(received[1].body, received[1].headers)
    assert [d["state"] for d in delivered_states(second, 2)] == ["delivered", "delivered"]
