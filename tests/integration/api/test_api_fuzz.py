"""Schemathesis fuzzes every operation of the published OpenAPI schema through the WSGI app,
with a real token against the real database: no 5xx, and every answer is documented (status
code, content type, body and headers). Seeded: a run is the same run every time."""

from collections.abc import Callable

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from apiauth.services import api_token_create
from orders.models import Order
from tests.factories import OrderFactory


def _closing(app: Callable) -> Callable:
    """The app as a WSGI server runs it: the answer read, then closed. Schemathesis' WSGI
    transport never calls close(), so Django's request_finished never fired: the request's
    events stayed unpublished in the thread (messaging/relay/after_answer.py) and an order
    of a later test in the same process was never sent."""

    def wsgi(environ: dict, start_response: Callable) -> list[bytes]:
        answer = app(environ, start_response)
        try:
            return [b"".join(answer)]
        finally:
            answer.close()

    return wsgi


# Valid and invalid data alike (schemathesis' positive and negative modes, its default).
schema = schemathesis.openapi.from_wsgi("/api/schema/", _closing(get_wsgi_application()))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EXAMPLES_PER_OPERATION = 300


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """Most cases name a real order: a random UUID alone would only ever find a 404, and
    never reach reading, paying or cancelling (and their version conflicts)."""
    if not path_parameters or "order_id" not in path_parameters:
        return st.just(path_parameters)
    orders = list(Order.objects.order_by("created_at").values_list("id", flat=True)[:3])
    return st.sampled_from([path_parameters, *({**path_parameters, "order_id": str(id_)} for id_ in orders)])


@pytest.fixture
def fuzz_token(transactional_db, broker, settings) -> str:
    # Transactional: the WSGI handler closes the connection after each request, as in
    # production, so every request commits for real (and its on-commit publish reaches the
    # test vhost) instead of running inside one test transaction.
    settings.API_THROTTLE_RATE = "1000000/day"  # one busy client; the limit has its own tests
    token, raw = api_token_create(name="fuzz")
    OrderFactory.create_batch(3, api_token=token)  # its own: another token's orders are a 404
    return raw


@pytest.fixture
def statuses_seen():
    """The fuzz must get past authentication and validation: with a broken token or only
    invalid bodies every answer would be a documented 4xx and the test would prove nothing."""
    seen: set[int] = set()
    yield seen
    assert any(200 <= status < 300 for status in seen), f"no success among {sorted(seen)}"
    assert any(400 <= status < 500 for status in seen), f"no client error among {sorted(seen)}"


@pytest.mark.long_running
@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,  # a fixed seed: the same examples every run
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_documented_and_never_5xx(case, fuzz_token, statuses_seen):
    response = case.call_and_validate(headers={"Authorization": f"Bearer {fuzz_token}"}, checks=CHECKS)
    statuses_seen.add(response.status_code)
