"""A JSON body nested about a thousand levels deep would make Python's parser raise
RecursionError (a 500). Every door that reads JSON refuses it first with a 400 and the reason
(infra/json_nesting.py): the order API and each delivery webhook, with valid credentials, so
the body would otherwise reach the parser."""

import base64
import json

import pytest
from rest_framework.test import APIClient

from notifications.models import ProviderEvent
from orders.models import Order
from tests.integration.delivery_webhook_requests import (
    BASIC_AUTH,
    ENDPOINTS,
    provider_configure,
    svix_headers,
    webhook_post,
)

pytestmark = pytest.mark.django_db

DEPTH = 1000
REFUSAL = f"The JSON body nests {DEPTH + 1} levels deep; at most 64 are accepted."


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def api(api_token) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


def test_the_order_api_refuses_a_deeply_nested_body_with_the_reason(api):
    body = (
        '{"customer_email": "ada@example.com", "amount": "1.00", "currency": "EUR", "x": '
        + _nested(DEPTH)
        + "}"
    )
    # when
    response = api.generic("POST", "/api/orders/", body, content_type="application/json")
    # then
    assert response.status_code == 400, response.content
    assert response.json() == {
        "error": "parse_error",
        "message": f"JSON parse error - {REFUSAL}",
    }
    assert Order.objects.count() == 0


def test_the_order_api_still_reads_a_body_nested_within_the_limit(api):
    body = '{"customer_email": ' + _nested(60) + ', "amount": "1.00", "currency": "EUR"}'
    response = api.generic("POST", "/api/orders/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"  # read, then refused for its fields
    assert set(response.json()["fields"]) == {"customer_email"}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_webhook_refuses_a_deeply_nested_body_with_the_reason(settings, endpoint):
    path = provider_configure(settings, endpoint)
    body = ('{"type": "email.bounced", "data": ' + _nested(DEPTH) + "}").encode()
    headers = {
        "resend": svix_headers(body),  # signed: only the parser could refuse it
        "ses": {"x-amz-sns-message-type": "Notification", "x-amz-sns-message-id": "m-1"},
    }.get(endpoint, {})
    if endpoint in ("brevo", "ses", "postmark"):
        headers["Authorization"] = "Basic " + base64.b64encode(BASIC_AUTH.encode()).decode()
    # when
    response = webhook_post(path, body, headers)
    # then
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == REFUSAL
    assert ProviderEvent.objects.count() == 0


def test_a_deep_document_inside_an_ses_notification_is_refused_with_the_reason(settings):
    # given SES's SNS notification, itself shallow, whose `Message` string holds the deep JSON
    path = provider_configure(settings, "ses")
    body = json.dumps({"Type": "Notification", "MessageId": "m-1", "Message": _nested(DEPTH)}).encode()
    headers = {
        "x-amz-sns-message-type": "Notification",
        "x-amz-sns-message-id": "m-1",
        "Authorization": "Basic " + base64.b64encode(BASIC_AUTH.encode()).decode(),
    }
    # when
    response = webhook_post(path, body, headers)
    # then
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == "A document inside the body nests too deep to be read."
    assert ProviderEvent.objects.count() == 0
