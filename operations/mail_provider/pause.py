"""Operators and the provider's circuit breaker (notifications/delivery/circuit.py): pause
every worker's calls for planned maintenance and resume them (where it stands is
`provider_circuit_status`, notifications/selectors.py). Each pause and resume is recorded
(OperatorAction)."""

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from notifications.audit import action_done
from notifications.models import OperatorAction, ProviderCircuit

State = ProviderCircuit.State


class CircuitRefused(Exception):
    """The request does not fit the circuit's state; nothing was changed."""


@transaction.atomic
def provider_pause(*, provider: str, actor_name: str, reason: str) -> str:
    circuit_pause(provider=provider, actor_name=actor_name, reason=reason)
    action_done(
        action=OperatorAction.Action.PROVIDER_PAUSE,
        actor_name=actor_name,
        comment=reason,
        result=f"{provider} paused",
    )
    return f"{provider} paused: no worker calls it until `provider resume`; emails wait, nothing is lost."


def provider_configured_check(provider: str) -> None:
    """Only MAIL_PROVIDER and its fallback have circuits the workers read: a pause of any other
    name would change nothing and say it had."""
    configured = [name for name in (settings.MAIL_PROVIDER, settings.MAIL_PROVIDER_FALLBACK) if name]
    if provider not in configured:
        raise CircuitRefused(f"{provider!r} is not a configured provider: {' or '.join(configured)}.")


def circuit_pause(*, provider: str, actor_name: str, reason: str) -> None:
    """In the caller's transaction; the caller records the action."""
    provider_configured_check(provider)
    if not reason.strip():
        raise CircuitRefused("A pause needs a reason (for example the provider's maintenance notice).")
    circuit, _ = ProviderCircuit.objects.select_for_update().get_or_create(provider=provider)
    if circuit.state == State.PAUSED:
        raise CircuitRefused(f"{provider} is already paused by {circuit.paused_by}: {circuit.paused_reason}")
    circuit.state, circuit.paused_by, circuit.paused_reason = State.PAUSED, actor_name, reason
    circuit.down_since = circuit.down_since or timezone.now()  # paused while open: down since then
    circuit.save()


@transaction.atomic
def provider_resume(*, provider: str, actor_name: str, reason: str = "") -> str:
    provider_configured_check(provider)
    circuit = ProviderCircuit.objects.select_for_update().filter(provider=provider).first()
    if circuit is None or circuit.state != State.PAUSED:
        raise CircuitRefused(f"{provider} is not paused ({circuit.state if circuit else State.CLOSED}).")
    circuit.state, circuit.failures, circuit.paused_by, circuit.paused_reason = State.CLOSED, 0, "", ""
    circuit.retry_at = circuit.probe_until = circuit.opened_at = circuit.down_since = None
    circuit.up_since = timezone.now()
    circuit.save()
    action_done(
        action=OperatorAction.Action.PROVIDER_RESUME,
        actor_name=actor_name,
        comment=reason,
        result=f"{provider} resumed",
    )
    return (
        f"{provider} resumed: waiting emails go out as their messages come back "
        f"(within {settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS} s)."
    )
