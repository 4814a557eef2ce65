"""Where settings come from: environment variables, and an optional `.env` file beside the
code for local overrides (never committed)."""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# What a switch may say: django-environ's words for on, and the usual words for off.
SWITCH_ON = environ.Env.BOOLEAN_TRUE_STRINGS
SWITCH_OFF = ("false", "off", "no", "n", "0", "")


def switch(name: str, *, default: bool) -> bool:
    """`env.bool`, but a value that is neither on nor off refuses to start: env.bool reads any
    other word as off, so a misspelt "ture" would silently keep off what the operator turned on."""
    said = env.str(name, default="on" if default else "off").strip().lower()
    if said not in (*SWITCH_ON, *SWITCH_OFF):
        raise ImproperlyConfigured(f"{name} is {said!r}: write true or false.")
    return said in SWITCH_ON
