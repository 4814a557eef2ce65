"""A result with no provider call behind it (our render error, a changed or deleted attachment,
an attachment a provider module refused before calling) never counts for or against the circuit:
it says nothing of the provider's health, and as a "success" it would close an open circuit."""

from notifications.delivery.calls import ATTACHMENT_CHANGED, ATTACHMENT_DELETED, RENDER_ERROR
from notifications.delivery.circuit import NOT_CALLED
from notifications.providers.attachments import INVALID, TOO_LARGE


def test_every_result_without_a_call_is_known_to_the_circuit():
    assert {RENDER_ERROR, ATTACHMENT_CHANGED, ATTACHMENT_DELETED, INVALID, TOO_LARGE} == NOT_CALLED
