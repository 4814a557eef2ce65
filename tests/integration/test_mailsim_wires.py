"""The simulator's send wires, black-box over real HTTP against a real ``python -m mailsim``
process."""

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
