"""Every API error is JSON with a clear message, never HTML or a traceback (DEBUG off, as in
production); the admin keeps Django's HTML pages."""

import logging

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

VALID_ORDER = {"customer_email": "ada@example.com", "amount": "49.90", "currency": "EUR"}


def _json_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) >= {"error", "message"}
    assert body["message"]
    return body


def test_debug_is_off_in_these_tests(settings):
    assert settings.DEBUG is False  # what a production client sees is what is tested here


@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/orders/not-a-uuid/", "/api/orders/x/pay/"])
def test_an_unknown_api_path_is_a_json_404(client, path):
    body = _json_error(client.get(path), 404)
    assert body == {"error": "not_found", "message": f"There is no API endpoint at {path}."}


def test_outside_the_api_a_404_stays_django_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_method_the_endpoint_does_not_have_is_a_json_405(client):
    body = _json_error(client.put("/api/orders/", VALID_ORDER, format="json"), 405)
    assert body == {"error": "method_not_allowed", "message": 'Method "PUT" not allowed.'}


def test_a_body_that_is_not_json_is_a_json_415(client):
    response = client.generic("POST", "/api/orders/", "customer_email=ada", content_type="text/plain")
    body = _json_error(response, 415)
    assert body["error"] == "unsupported_media_type"
    assert "text/plain" in body["message"]


def test_malformed_json_is_a_json_400_that_says_so(client):
    response = client.generic("POST", "/api/orders/", '{"amount": 1,,}', content_type="application/json")
    body = _json_error(response, 400)
    assert body["error"] == "parse_error"
    assert body["message"].startswith("JSON parse error")


def test_a_json_body_that_is_not_an_object_is_a_json_400(client):
    body = _json_error(client.post("/api/orders/", ["a", "list"], format="json"), 400)
    assert body["fields"] == {"non_field_errors": ["The body must be a JSON object."]}


def test_asking_for_html_is_a_json_406(client):
    body = _json_error(client.get("/api/orders/", HTTP_ACCEPT="text/html"), 406)
    assert body["error"] == "not_acceptable"


def test_a_missing_token_is_a_json_401():
    body = _json_error(APIClient().post("/api/orders/", VALID_ORDER, format="json"), 401)
    assert body["error"] == "not_authenticated"


@pytest.mark.urls("tests.integration.api.urls_with_a_failing_view")
def test_an_unexpected_exception_is_a_json_500_without_the_traceback_and_is_logged(caplog):
    client = Client(raise_request_exception=False)
    # when
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get("/api/test-failure/")
    # then: the client learns nothing about the internals
    body = _json_error(response, 500)
    assert body["error"] == "server_error"
    text = response.content.decode()
    assert "Traceback" not in text
    assert "secret internals" not in text
    assert "RuntimeError" not in text
    # and the operators get the whole story
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info[0] is RuntimeError
    assert record.getMessage() == "Internal Server Error: /api/test-failure/"


@pytest.mark.urls("tests.integration.api.urls_with_a_failing_view")
def test_outside_the_api_a_500_stays_django_html():
    response = Client(raise_request_exception=False).get("/test-failure/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_disallowed_host_on_the_api_is_a_json_400(client):
    body = _json_error(client.get("/api/orders/", HTTP_HOST="evil.example"), 400)
    assert body["error"] == "bad_request"
