"""What production refuses to start with (docs/security.md): a settings mistake that would
otherwise show up as a breach or a lost guarantee is an error at start-up instead."""

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me"
# Packages that hold drill and test machinery: production never loads code from them.
_NOT_PRODUCT = ("tools.", "tests.")


def production_refusals(
    *, django_env: str, debug: bool, secret_key: str, fault_crash_point: str, event_catalogues: list[str]
) -> None:
    if django_env not in ("development", "production"):
        raise ImproperlyConfigured(f"DJANGO_ENV must be development or production, not {django_env!r}.")
    if django_env != "production":
        return
    if debug:
        raise ImproperlyConfigured(
            "DJANGO_DEBUG must be false in production: debug pages show settings and code."
        )
    if secret_key == DEVELOPMENT_SECRET_KEY or len(secret_key) < 50:
        # Anyone who knows the key can forge sessions (the admin) and password-reset links.
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is the development key or shorter than 50 characters; production needs "
            'its own: python -c "import secrets; print(secrets.token_urlsafe(50))"'
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
