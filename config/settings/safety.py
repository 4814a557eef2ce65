"""What production refuses to start with (docs/security.md): a settings mistake that would
otherwise show up as a breach or a lost guarantee is an error at start-up instead."""

import hashlib

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me"
_DEVELOPMENT_HASH_KEY_PREFIX = "development-hash-key:"


def development_hash_key(secret_key: str) -> str:
    """Development's PERSONAL_DATA_HASH_KEY when none is set: derived from the secret key, and
    recognisable, so that production refuses it."""
    return _DEVELOPMENT_HASH_KEY_PREFIX + hashlib.sha256(secret_key.encode()).hexdigest()


# The names under which the web answers only on this machine: the default ALLOWED_HOSTS.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def implied_environment(allowed_hosts: list[str]) -> str:
    """DJANGO_ENV when it is not set: development while every host the web answers to is this
    machine, production as soon as one is not ("*" included)."""
    return "development" if all(host in LOCAL_HOSTS for host in allowed_hosts) else "production"


# The shortest keys production takes (Django's own generator makes secret keys of 50).
SECRET_KEY_MIN_LENGTH = 50
HASH_KEY_MIN_LENGTH = 32

# Packages that hold drill and test machinery: production never loads code from them.
_NOT_PRODUCT = ("tools.", "tests.")


def production_refusals(
    *,
    django_env: str,
    debug: bool,
    secret_key: str,
    hash_key: str,
    fault_crash_point: str,
    event_catalogues: list[str],
) -> None:
    if django_env not in ("development", "production"):
        raise ImproperlyConfigured(f"DJANGO_ENV must be development or production, not {django_env!r}.")
    if django_env != "production":
        return
    if debug:
        raise ImproperlyConfigured(
            "DJANGO_DEBUG must be false in production: debug pages show settings and code."
        )
    if secret_key == DEVELOPMENT_SECRET_KEY or len(secret_key) < SECRET_KEY_MIN_LENGTH:
        # Anyone who knows the key can forge sessions (the admin) and password-reset links.
        raise ImproperlyConfigured(
            f"DJANGO_SECRET_KEY is the development key or shorter than {SECRET_KEY_MIN_LENGTH} characters; "
            'production needs its own: python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )
    if hash_key.startswith(_DEVELOPMENT_HASH_KEY_PREFIX) or len(hash_key) < HASH_KEY_MIN_LENGTH:
        # The key of the hashes that keep an erased address suppressed: one derived from a
        # development default could be recomputed by anyone, and a guessed address confirmed.
        raise ImproperlyConfigured(
            f"PERSONAL_DATA_HASH_KEY is unset or shorter than {HASH_KEY_MIN_LENGTH} characters; production "
            "needs its own, kept in the secret store: "
            'python -c "import secrets; print(secrets.token_urlsafe(32))"'
        )
    # The fault switches of the drills: a crash point kills the process on purpose, and a
    # drill catalogue swaps a handler for a deliberately broken one.
    if fault_crash_point:
        raise ImproperlyConfigured(
            f"FAULT_CRASH_POINT={fault_crash_point!r} is a drill's fault switch (it kills the process at "
            "that point); unset it in production."
        )
    drills = [path for path in event_catalogues if path.startswith(_NOT_PRODUCT)]
    if drills:
        raise ImproperlyConfigured(
            f"MESSAGING_EVENT_CATALOGUES names drill or test code ({', '.join(drills)}); production uses "
            "the product's catalogues only (the default)."
        )
