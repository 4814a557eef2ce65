import hashlib
import secrets
import uuid
from collections.abc import Iterable
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from apiauth.models import ApiToken, ApiTokenRevocation

TOKEN_PREFIX = "ont_"  # order-notifications token: easy to spot in a leaked log or repo
TOKEN_RANDOM_BYTES = 32  # 256 random bits: guessing a token is hopeless
# last_used_at is written at most this often, so authentication is not a write per request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def token_hash(raw_token: str) -> str:
    return hashlib.sha256(raw_token.encode()).hexdigest()


class UnknownTokenName(Exception):
    pass


class TokenNameTaken(Exception):
    """A new token under a name that tokens have: whose client would it speak for?"""


class ClientMismatch(Exception):
    """The name's tokens and the predecessor's speak for two different clients."""


@transaction.atomic
def api_token_create(*, name: str, successor_of: str | None = None) -> tuple[ApiToken, str]:
    """Create a token and return it with its raw value, which is shown once and never stored.
    It speaks for a new client, or with `successor_of` for that name's client and so reaches
    its orders (a rotation, or a second token of one client). A name in use is refused
    without `successor_of`: a reused name must never hand a new client another's orders."""
    if successor_of is None:
        if ApiToken.objects.filter(name=name).exists():
            raise TokenNameTaken(
                f"Tokens named {name!r} exist already. Give the new token a new name, or make it "
                f"--successor-of {name!r} to speak for the same client (or --replace them)."
            )
        client = uuid.uuid4()
    else:
        predecessor = _client_of_name(successor_of)
        if predecessor is None:
            raise UnknownTokenName(f"No token is named {successor_of!r}: there is nothing to succeed.")
        if _client_of_name(name) not in (None, predecessor):
            raise ClientMismatch(
                f"Tokens named {name!r} already speak for another client than {successor_of!r}'s; "
                "choose a new name for the successor."
            )
        client = predecessor
    raw = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_RANDOM_BYTES)
    token = ApiToken.objects.create(name=name, key_hash=token_hash(raw), prefix=raw[:12], client=client)
    return token, raw


@transaction.atomic
def api_token_replace(*, name: str, actor_name: str) -> tuple[ApiToken, str, int]:
    """Revoke the active tokens of the name and make a new one of the same client, in one
    transaction, so a failure leaves the old ones working; with how many were revoked."""
    if not ApiToken.objects.filter(name=name).exists():
        return (*api_token_create(name=name), 0)
    revoked = api_token_revoke_by_name(name=name, actor_name=actor_name)
    return (*api_token_create(name=name, successor_of=name), revoked)


def _client_of_name(name: str) -> uuid.UUID | None:
    """The client of the name's newest token (tokens made before clients existed each have
    their own)."""
    return ApiToken.objects.filter(name=name).order_by("-created_at").values_list("client", flat=True).first()


@transaction.atomic
def api_tokens_revoke(
    *, token_ids: Iterable[int], actor_name: str, actor: User | None, via: ApiTokenRevocation.Via
) -> list[ApiToken]:
    """Revoke the active tokens among these, each with a record of who did it and from where;
    returns them. One already revoked keeps its first revocation (and its record)."""
    now = timezone.now()
    tokens = list(
        ApiToken.objects.select_for_update()
        .filter(pk__in=list(token_ids), revoked_at__isnull=True)
        .order_by("pk")
    )
    for token in tokens:
        token.revoked_at = now
        token.save(update_fields=["revoked_at"])
    ApiTokenRevocation.objects.bulk_create(
        ApiTokenRevocation(
            token=token, token_name=token.name, actor=actor, actor_name=actor_name, via=via, revoked_at=now
        )
        for token in tokens
    )
    return tokens


@transaction.atomic
def api_token_revoke_by_name(*, name: str, actor_name: str) -> int:
    """From the command line: every active token of this name."""
    ids = ApiToken.objects.filter(name=name, revoked_at__isnull=True).values_list("pk", flat=True)
    revoked = api_tokens_revoke(
        token_ids=ids, actor_name=actor_name, actor=None, via=ApiTokenRevocation.Via.COMMAND
    )
    return len(revoked)


def api_token_authenticate(*, raw_token: str) -> ApiToken | None:
    token = ApiToken.objects.filter(
        key_hash=token_hash(raw_token), revoked_at__isnull=True, revocation__isnull=True
    ).first()
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
