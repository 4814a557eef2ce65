"""Sending through one provider only, for maintenance of the other (MAIL_PROVIDER and its
fallback, MAIL_PROVIDER_FALLBACK): the other is paused, so the claims' routing
(notifications/delivery/routing.py) sends every email that no provider may have yet through the
chosen one. An email with an unknown outcome at the paused one still waits for it: forcing never
moves such an email. `automatic` resumes whichever of the two is paused. Each is recorded
(OperatorAction), with the operator's reason."""

from django.conf import settings
from django.db import transaction

from notifications.audit import action_done
from notifications.models import OperatorAction, ProviderCircuit
from operations.mail_provider.pause import CircuitRefused, circuit_pause, provider_resume

AUTOMATIC = "automatic"


@transaction.atomic
def provider_force(*, use: str, actor_name: str, reason: str) -> str:
    """Send through `use` only (or `automatic`: both again, the first one first)."""
    first, fallback = settings.MAIL_PROVIDER, settings.MAIL_PROVIDER_FALLBACK
    if not fallback:
        raise CircuitRefused("No fallback is set (MAIL_PROVIDER_FALLBACK): pause or resume the one provider.")
    if use == AUTOMATIC:
        return _automatic(first, fallback, actor_name=actor_name, reason=reason)
    if use not in (first, fallback):
        raise CircuitRefused(
            f"{use!r} is neither the first provider ({first}) nor the fallback ({fallback})."
        )
    other = fallback if use == first else first
    if not reason.strip():
        raise CircuitRefused(
            "Forcing a provider needs a reason (for example the other's maintenance notice)."
        )
    circuit_pause(provider=other, actor_name=actor_name, reason=f"sending forced through {use}: {reason}")
    action_done(
        action=OperatorAction.Action.PROVIDER_FORCE,
        actor_name=actor_name,
        comment=reason,
        result=f"sending through {use} only; {other} paused",
    )
    return (
        f"Sending through {use} only: {other} is paused until `provider use {AUTOMATIC}`. Emails whose "
        f"outcome at {other} is unknown still wait for it."
    )


def _automatic(first: str, fallback: str, *, actor_name: str, reason: str) -> str:
    paused = ProviderCircuit.objects.filter(
        provider__in=[first, fallback], state=ProviderCircuit.State.PAUSED
    ).values_list("provider", flat=True)
    if not paused:
        raise CircuitRefused(f"Neither {first} nor {fallback} is paused: sending is automatic already.")
    said = [provider_resume(provider=name, actor_name=actor_name, reason=reason) for name in sorted(paused)]
    return f"Sending is automatic again ({first} first, {fallback} while it cannot). " + " ".join(said)
