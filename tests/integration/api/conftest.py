"""The API tests: `client` here is an API client that sends a valid bearer token (Django's
test client, for the admin, is `django.test.Client`), and `order` is an order that token
placed: the API shows a token only its own orders."""

import pytest
from rest_framework.test import APIClient

from apiauth.models import ApiToken
from apiauth.services import token_hash
from orders.models import Order
from tests.factories import OrderFactory


@pytest.fixture
def client(api_token) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


@pytest.fixture
def client_token(api_token) -> ApiToken:
    """The token `client` sends, as stored."""
    return ApiToken.objects.get(key_hash=token_hash(api_token))


@pytest.fixture
def order(client_token, django_capture_on_commit_callbacks) -> Order:
    """Ada's order of 49.90 EUR placed by `client`'s token, as `order_create` leaves it (its
    event in the outbox, its confirmation pending; the on-commit publish captured and never
    run, as in tests/integration/conftest.py's `order`)."""
    with django_capture_on_commit_callbacks(execute=False):
        return OrderFactory.create(
            customer_email="ada@example.com", amount="49.90", currency="EUR", api_token=client_token
        )
