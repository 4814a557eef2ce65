"""The API tokens in the admin, through Django's test client: nothing of a token can be changed
in its form (a revoked one stays revoked and keeps answering 401), revoking is the Revoke
action, and every revocation, from the admin or from `revoke_api_token`, is recorded with who
did it. The API is called with the token itself (DRF's test client, the API's own code)."""

import getpass
import uuid
from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from rest_framework.test import APIClient

from apiauth.models import ApiToken

pytestmark = pytest.mark.django_db
ADMIN = "/admin/apiauth/apitoken/"


@pytest.fixture
def superuser(client) -> User:
    user = User.objects.create_superuser("root", password="pw")
    client.force_login(user)
    return user


def _token(name: str) -> str:
    out = StringIO()
    call_command("create_api_token", name, stdout=out)
    return out.getvalue().strip()


def _api_status(raw: str) -> int:
    """401: the token does not work; 404: it works (the order does not exist)."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return api.get(f"/api/orders/{uuid.uuid4()}/").status_code


def test_clearing_revoked_at_in_the_change_form_leaves_the_token_revoked(client, superuser):
    # given a revoked token
    raw = _token("checkout")
    call_command("revoke_api_token", "checkout", stdout=StringIO())
    token = ApiToken.objects.get(name="checkout")
    revoked_at = token.revoked_at
    # when an admin posts its change form with revoked_at emptied
    response = client.post(f"{ADMIN}{token.pk}/change/", {"revoked_at_0": "", "revoked_at_1": ""})
    # then nothing changed and the token is still locked out
    token.refresh_from_db()
    assert token.revoked_at == revoked_at
    assert _api_status(raw) == 401
    assert response.status_code == 403
    page = client.get(f"{ADMIN}{token.pk}/change/").content.decode()
    assert 'name="revoked_at_0"' not in page  # shown, not a field
    assert 'name="key_hash"' not in page


def test_the_revoke_action_locks_the_tokens_out_and_records_who_did_it(client, superuser):
    raws = {"checkout": _token("checkout"), "billing": _token("billing")}
    tokens = list(ApiToken.objects.filter(name__in=raws).order_by("pk"))
    # when
    response = client.post(
        ADMIN, {"action": "revoke", "_selected_action": [token.pk for token in tokens]}, follow=True
    )
    # then
    assert "Revoked 2 token(s): checkout (ont_" in response.content.decode()
    assert [_api_status(raw) for raw in raws.values()] == [401, 401]
    for token in tokens:
        token.refresh_from_db()
        record = token.revocation
        assert (record.actor, record.actor_name, record.via, record.token_name) == (
            superuser,
            "root",
            "admin",
            token.name,
        )
        assert record.revoked_at == token.revoked_at
    page = client.get(f"{ADMIN}{tokens[0].pk}/change/").content.decode()
    assert "the admin&#x27;s Revoke action" in page
    assert "root" in page


def test_revoking_a_revoked_token_again_keeps_its_first_record(client, superuser):
    raw = _token("checkout")
    call_command("revoke_api_token", "checkout", "--actor", "ops", stdout=StringIO())
    token = ApiToken.objects.get(name="checkout")
    response = client.post(ADMIN, {"action": "revoke", "_selected_action": [token.pk]}, follow=True)
    assert "Already revoked, left as they were: checkout (ont_" in response.content.decode()
    token.refresh_from_db()
    assert (token.revocation.actor_name, token.revocation.via) == ("ops", "command")
    assert _api_status(raw) == 401


def test_staff_without_the_revoke_permission_cannot_revoke(client):
    viewer = User.objects.create_user("vera", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apitoken"))
    client.force_login(viewer)
    raw = _token("checkout")
    token = ApiToken.objects.get(name="checkout")
    assert 'value="revoke"' not in client.get(ADMIN).content.decode()
    client.post(ADMIN, {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.revoked_at is None
    assert _api_status(raw) == 404


def test_revoke_api_token_records_the_operating_system_user_or_the_actor():
    _token("checkout"), _token("billing")
    out = StringIO()
    call_command("revoke_api_token", "checkout", stdout=out)
    call_command("revoke_api_token", "billing", "--actor", "ops", stdout=out)
    records = {
        token.name: (token.revocation.actor, token.revocation.actor_name, token.revocation.via)
        for token in ApiToken.objects.all()
    }
    assert records == {"checkout": (None, getpass.getuser(), "command"), "billing": (None, "ops", "command")}
    assert "Revoked 1 token(s) named 'billing', recorded as revoked by ops." in out.getvalue()


def test_create_api_token_replace_records_the_revocation_of_the_old_token():
    _token("dev")
    call_command("create_api_token", "dev", "--replace", stdout=StringIO(), stderr=StringIO())
    old, new = ApiToken.objects.filter(name="dev").order_by("pk")
    assert (old.revocation.actor_name, old.revocation.via) == (getpass.getuser(), "command")
    assert new.revoked_at is None


def test_a_token_with_a_revocation_record_stays_out_even_if_revoked_at_is_cleared_behind_the_admin():
    raw = _token("checkout")
    call_command("revoke_api_token", "checkout", stdout=StringIO())
    ApiToken.objects.filter(name="checkout").update(revoked_at=None)  # a database edit
    assert _api_status(raw) == 401
