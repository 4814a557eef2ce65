import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from apiauth.models import ApiToken

TOKEN_PREFIX = "ont_"  # order-notifications token: easy to spot in a leaked log or repo
# last_used_at is written at most this often, so authentication is not a write per request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def token_hash(raw_token: str) -> str:
    return hashlib.sha256(raw_token.encode()).hexdigest()


def api_token_create(*, name: str) -> tuple[ApiToken, str]:
    """Create a token and return it with its raw value, which is shown once and never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(name=name, key_hash=token_hash(raw), prefix=raw[:12])
    return token, raw


@transaction.atomic
def api_token_revoke_by_name(*, name: str) -> int:
    return ApiToken.objects.filter(name=name, revoked_at__isnull=True).update(revoked_at=timezone.now())


def api_token_authenticate(*, raw_token: str) -> ApiToken | None:
    token = ApiToken.objects.filter(key_hash=token_hash(raw_token), revoked_at__isnull=True).first()
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
