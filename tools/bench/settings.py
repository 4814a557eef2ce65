"""The benchmark's processes: the product's settings plus the naive baseline beside it."""

from config.settings.base import *  # noqa: F403
from config.settings.base import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tools.bench.naive"]
