"""Where settings come from: environment variables, and an optional `.env` file beside the
code for local overrides (never committed)."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
