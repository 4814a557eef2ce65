"""Operators and the provider's circuit breaker (notifications/delivery/circuit.py): pause
every worker's calls for planned maintenance, resume them, and read where it stands. Each
pause and resume is recorded (OperatorAction)."""

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction

from notifications.models import Notification, OperatorAction, ProviderCircuit
from notifications.operations.audit import action_done

State = ProviderCircuit.State


class CircuitRefused(Exception):
    """The request does not fit the circuit's state; nothing was changed."""


@dataclass(frozen=True)
class CircuitStatus:
    provider: str
    state: str
    failures: int
    retry_at: datetime | None
    paused_by: str
    paused_reason: str
    since: datetime | None  # when it last changed
    waiting_emails: int  # pending emails whose reason is the circuit (or the pause)

    def describe(self) -> str:
        if self.state == State.CLOSED:
            tail = f", {self.failures} transient failure(s) in a row" if self.failures else ""
            return f"{self.provider}: closed, emails go out{tail}"
        if self.state == State.PAUSED:
            return f"{self.provider}: paused by {self.paused_by} ({self.paused_reason}); emails wait"
        if self.state == State.OPEN:
            return (
                f"{self.provider}: open after {self.failures} failures in a row; one probe call at "
                f"{self.retry_at:%Y-%m-%d %H:%M:%S} UTC decides"
            )
        return f"{self.provider}: half open, a probe call is testing the provider"


def provider_circuit_status(provider: str) -> CircuitStatus:
    circuit = ProviderCircuit.objects.filter(provider=provider).first() or ProviderCircuit(provider=provider)
    waiting = Notification.objects.filter(
        status=Notification.Status.PENDING, last_error__startswith="The mail provider"
    ).count()
    return CircuitStatus(
        provider=provider,
        state=circuit.state,
        failures=circuit.failures,
        retry_at=circuit.retry_at,
        paused_by=circuit.paused_by,
        paused_reason=circuit.paused_reason,
        since=circuit.updated_at,
        waiting_emails=waiting if circuit.state != State.CLOSED else 0,
    )


@transaction.atomic
def provider_pause(*, provider: str, actor_name: str, reason: str) -> str:
    if not reason.strip():
        raise CircuitRefused("A pause needs a reason (for example the provider's maintenance notice).")
    circuit, _ = ProviderCircuit.objects.select_for_update().get_or_create(provider=provider)
    if circuit.state == State.PAUSED:
        raise CircuitRefused(f"{provider} is already paused by {circuit.paused_by}: {circuit.paused_reason}")
    circuit.state, circuit.paused_by, circuit.paused_reason = State.PAUSED, actor_name, reason
    circuit.save()
    action_done(
        action=OperatorAction.Action.PROVIDER_PAUSE,
        actor_name=actor_name,
        comment=reason,
        result=f"{provider} paused",
    )
    return f"{provider} paused: no worker calls it until `provider resume`; emails wait, nothing is lost."


@transaction.atomic
def provider_resume(*, provider: str, actor_name: str, reason: str = "") -> str:
    circuit = ProviderCircuit.objects.select_for_update().filter(provider=provider).first()
    if circuit is None or circuit.state != State.PAUSED:
        raise CircuitRefused(f"{provider} is not paused ({circuit.state if circuit else State.CLOSED}).")
    circuit.state, circuit.failures, circuit.paused_by, circuit.paused_reason = State.CLOSED, 0, "", ""
    circuit.retry_at = circuit.probe_until = circuit.opened_at = None
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
