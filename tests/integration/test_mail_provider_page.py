"""The admin's "Mail provider" page: the circuit in words for every staff user, and the
buttons of `manage.py provider pause|resume` for the reviewers (recorded, a pause needs a
reason). The workers' side of a pause is tests/integration/test_provider_circuit.py's."""

import pytest
from django.conf import settings

from notifications.models import OperatorAction, ProviderCircuit
from operations.reviewers import reviewers_group_ensure
from tests.factories import staff_user

# Not transactional: the reviewers group comes from a data migration (a flush removes it).
pytestmark = pytest.mark.django_db
PAGE = "/admin/mail-provider/"


@pytest.fixture
def rita():
    reviewers_group_ensure()
    return staff_user("rita", reviewer=True)


def _state() -> str:
    circuit = ProviderCircuit.objects.filter(provider=settings.MAIL_PROVIDER).first()
    return circuit.state if circuit else "closed"


def test_a_reviewer_pauses_with_a_reason_and_resumes_and_both_are_recorded(client, rita):
    client.force_login(rita)
    page = client.get(PAGE).content.decode()
    assert f"{settings.MAIL_PROVIDER}: closed, emails go out" in page
    assert "Pause sending" in page
    refused = client.post(PAGE, {"pause": "1", "reason": " "}, follow=True).content.decode()
    assert "Refused, nothing changed: A pause needs a reason" in refused
    assert _state() == "closed"
    paused = client.post(PAGE, {"pause": "1", "reason": "Resend maintenance 02:00-02:30"}, follow=True)
    assert "paused: no worker calls it" in paused.content.decode()
    assert "Resume sending" in paused.content.decode()
    assert _state() == "paused"
    resumed = client.post(PAGE, {"resume": "1"}, follow=True).content.decode()
    assert "resumed: waiting emails go out" in resumed
    assert _state() == "closed"
    assert list(
        OperatorAction.objects.order_by("created_at").values_list("action", "actor_name", "comment")
    ) == [
        ("provider_pause", "rita", "Resend maintenance 02:00-02:30"),
        ("provider_resume", "rita", ""),
    ]


def test_other_staff_see_the_state_but_may_not_pause(client):
    client.force_login(staff_user("victor", reviewer=False))
    page = client.get(PAGE).content.decode()
    assert "emails go out" in page
    assert "Pause sending" not in page
    assert client.post(PAGE, {"pause": "1", "reason": "why not"}).status_code == 403
    assert _state() == "closed"
    assert not OperatorAction.objects.exists()


def test_the_page_is_for_staff_only(client):
    assert client.get(PAGE).status_code == 302  # to the admin's login


@pytest.fixture
def with_fallback(settings):
    settings.MAIL_PROVIDER, settings.MAIL_PROVIDER_FALLBACK = "resend", "brevo"


def test_the_page_says_which_provider_sends_and_a_reviewer_forces_one_and_back(client, rita, with_fallback):
    client.force_login(rita)
    page = client.get(PAGE).content.decode()
    assert "Sending through resend; the fallback, brevo, is ready" in page
    # when: the reviewer sends through the fallback only, for the first's maintenance
    refused = client.post(PAGE, {"use": "brevo", "reason": ""}, follow=True).content.decode()
    assert "Refused, nothing changed: Forcing a provider needs a reason" in refused
    forced = client.post(PAGE, {"use": "brevo", "reason": "Resend maintenance"}, follow=True).content.decode()
    assert "Sending through brevo only: resend is paused" in forced
    # then: the page says the fallback sends, since when, and why the first takes nothing
    assert "Sending through the fallback, brevo since " in forced
    assert "resend: paused by rita (sending forced through brevo: Resend maintenance)" in forced
    circuit = ProviderCircuit.objects.get(provider="resend")
    assert circuit.state == "paused"
    assert circuit.down_since is not None
    # when: back to automatic
    back = client.post(PAGE, {"use": "automatic"}, follow=True).content.decode()
    assert "Sending is automatic again" in back
    assert "Sending through resend since " in back
    assert list(OperatorAction.objects.order_by("created_at").values_list("action", "result")) == [
        ("provider_force", "sending through brevo only; resend paused"),
        ("provider_resume", "resend resumed"),
    ]


def test_a_provider_that_is_not_configured_cannot_be_forced_or_paused(client, rita, with_fallback):
    client.force_login(rita)
    refused = client.post(PAGE, {"use": "ses", "reason": "x"}, follow=True).content.decode()
    assert "Refused, nothing changed: &#x27;ses&#x27; is neither the first provider" in refused
    paused = client.post(PAGE, {"pause": "1", "provider": "ses", "reason": "x"}, follow=True)
    assert "is not a configured provider" in paused.content.decode()
    assert not ProviderCircuit.objects.exists()
    assert not OperatorAction.objects.exists()
