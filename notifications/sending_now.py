"""Which provider takes new emails now, and since when, as people read it (the dashboard, the
mail provider's page, `manage.py provider status`) and /metrics reports it: the first provider
(MAIL_PROVIDER) while its circuit is closed; its fallback (MAIL_PROVIDER_FALLBACK) while the
first's is open, half open or paused and the fallback's is closed; else none, and emails wait.
This is the rule the claims follow (notifications/delivery/routing.py) for an email that no
provider may have yet; an email with an unknown outcome stays with its provider whatever this
says."""

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from notifications.models import ProviderCircuit
from notifications.selectors import CircuitStatus, provider_circuit_status

CLOSED = ProviderCircuit.State.CLOSED


@dataclass(frozen=True)
class SendingNow:
    provider: str  # the name of the provider that takes new emails; "" when none does
    since: datetime | None  # when it took over; None: it always has (as far as the rows tell)
    first: CircuitStatus
    fallback: CircuitStatus | None  # None: no fallback configured

    @property
    def through_fallback(self) -> bool:
        return self.fallback is not None and self.provider == self.fallback.provider

    def describe(self) -> str:
        since = f" since {self.since:%Y-%m-%d %H:%M:%S} UTC" if self.since else ""
        if self.fallback is None:
            return self.first.describe()
        if not self.provider:
            both = f"{self.first.describe()}; {self.fallback.describe()}"
            return f"No provider takes emails{since}: they wait. {both}"
        if self.through_fallback:
            return f"Sending through the fallback, {self.provider}{since}. {self.first.describe()}"
        return f"Sending through {self.provider}{since}; the fallback, {self.fallback.provider}, is ready"


def sending_now() -> SendingNow:
    first = provider_circuit_status(settings.MAIL_PROVIDER)
    fallback = (
        provider_circuit_status(settings.MAIL_PROVIDER_FALLBACK) if settings.MAIL_PROVIDER_FALLBACK else None
    )
    if first.state == CLOSED:
        return SendingNow(first.provider, first.up_since, first, fallback)
    if fallback is not None and fallback.state == CLOSED:
        return SendingNow(fallback.provider, first.down_since, first, fallback)
    downs = [status.down_since for status in (first, fallback) if status and status.down_since]
    return SendingNow("", max(downs) if downs else None, first, fallback)
