"""The API tests: `client` here is an API client that sends a valid bearer token (Django's
test client, for the admin, is `django.test.Client`)."""

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def client(api_token) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client
