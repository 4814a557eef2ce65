"""Figures read from the code, for tests/unit/test_doc_figures.py: a setting's default, a
module's constant, a Makefile default or recipe, a process script's default. Each is a
`Figure`, read when the test formats it, and shown the way the documents write it.

A setting's default is what a process gets with no variable set: the settings are read in a
fresh interpreter whose environment holds none of ours and which skips a local `.env`, so
neither the test run's variables nor a developer's overrides stand in for the code's value.
"""

import ast
import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

_READ_SETTINGS = """
import os, pickle, sys
import environ
environ.Env.read_env = classmethod(lambda cls, *args, **kwargs: None)  # no .env: the defaults
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
from django.conf import settings
values = {}
for name in dir(settings):
    if name.isupper():
        try:
            values[name] = pickle.dumps(getattr(settings, name))
        except Exception:
            pass  # a value that cannot cross the process boundary is no figure of a document
sys.stdout.buffer.write(pickle.dumps(values))
"""

# A production deployment's required keys, long enough for config/settings/safety.py.
_LONG_ENOUGH = "k" * 64
_PRODUCTION = {
    "DJANGO_ENV": "production",
    "DJANGO_SECRET_KEY": _LONG_ENOUGH,
    "PERSONAL_DATA_HASH_KEY": _LONG_ENOUGH,
}


@cache
def _settings(production: bool) -> dict[str, Any]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/")}
    read = subprocess.run(
        [sys.executable, "-c", _READ_SETTINGS],
        cwd=REPO,
        env=env | (_PRODUCTION if production else {}),
        capture_output=True,
        check=True,
    )
    return {name: pickle.loads(value) for name, value in pickle.loads(read.stdout).items()}


class Figure:
    """A value of the code, read and shown (`show`) only when the test formats its phrase."""

    def __init__(self, read: Callable[[], Any], show: Callable[[Any], str] = str) -> None:
        self.read, self.show = read, show

    def __format__(self, spec: str) -> str:
        return self.show(self.read())


def setting(name: str, show: Callable[[Any], str] | None = None, *, production: bool = False) -> Figure:
    """The default of a Django setting (of the production profile where `production`)."""
    return Figure(lambda: _settings(production)[name], show or number)


def constant(dotted: str, show: Callable[[Any], str] | None = None) -> Figure:
    """A name of ours, `package.module.NAME` (or `package.module.NAME.attribute`)."""

    def read() -> Any:
        parts = dotted.split(".")
        for split in range(len(parts) - 1, 0, -1):
            try:
                value: Any = importlib.import_module(".".join(parts[:split]))
            except ModuleNotFoundError:
                continue
            for part in parts[split:]:
                value = getattr(value, part)
            return value
        raise ModuleNotFoundError(dotted)

    return Figure(read, show or number)


def computed(read: Callable[[], Any], show: Callable[[Any], str] | None = None) -> Figure:
    return Figure(read, show or number)


class Names(Figure):
    """Names a document lists as backticked words in any order (`a`, `b` and `c`): the test
    compares the listed set with the code's."""

    def __init__(self, read: Callable[[], list[str]]) -> None:
        super().__init__(read, backticked)


def beat_job(job: str, show: Callable[[Any], str]) -> Figure:
    """A periodic job's schedule (settings' CELERY_BEAT_SCHEDULE)."""
    return Figure(lambda: _settings(False)["CELERY_BEAT_SCHEDULE"][job]["schedule"], show)


def at_time_of_day(schedule: Any) -> str:
    """A daily crontab as 03:17."""
    (hour,), (minute,) = schedule.hour, schedule.minute
    assert len(schedule.day_of_week) == 7, "a daily job"
    return f"{hour:02}:{minute:02}"


def hourly(schedule: Any) -> str:
    """ "hourly" for a crontab that runs every hour of every day."""
    every_hour = len(schedule.hour) == 24 and len(schedule.day_of_week) == 7
    return "hourly" if every_hour else f"not hourly: {schedule}"


def hourly_at_minute(schedule: Any) -> str:
    """An hourly crontab as its minute."""
    assert len(schedule.hour) == 24, "an hourly job"
    (minute,) = schedule.minute
    return str(minute)


# --- Files of ours read as text, signatures, pins ---------------------------------------

Show = Callable[[Any], str]


def source_match(path: str, pattern: str, show: Show | None = None) -> Figure:
    """The first group of `pattern` in a file of ours (a test's own sizes, a tool's settings)."""

    def read() -> str:
        found = re.search(pattern, (REPO / path).read_text())
        assert found, f"{path}: {pattern}"
        return found.group(1)

    return Figure(read, show or str)


def source_literal(path: str, name: str, show: Show | None = None) -> Figure:
    """A literal a file of ours assigns at its top level (`NAME = 300`; of a dict, its number of
    keys), read without importing the file."""

    def read() -> Any:
        tree = ast.parse((REPO / path).read_text())
        [value] = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == name for target in node.targets)
        ]
        return len(value.keys) if isinstance(value, ast.Dict) else ast.literal_eval(value)

    return Figure(read, show or number)


def default_argument(function: str, parameter: str, show: Show | None = None) -> Figure:
    """The default of a function's parameter (`package.module.function`)."""
    return Figure(
        lambda: inspect.signature(constant(function).read()).parameters[parameter].default, show or number
    )


def pinned(package: str) -> Figure:
    """The major and minor version requirements.txt pins (`celery==5.7.0`: 5.7)."""

    def read() -> str:
        pin = re.search(rf"^{package}==(\d+\.\d+)", (REPO / "requirements.txt").read_text(), re.MULTILINE)
        assert pin, f"requirements.txt pins {package}"
        return pin.group(1)

    return Figure(read)


def field_max_length(model: str, field: str) -> Figure:
    """A model field's max_length (`package.models.Model`)."""
    return Figure(lambda: constant(model).read()._meta.get_field(field).max_length)


# --- The Makefile and the process scripts ------------------------------------------------


def makefile_default(variable: str, show: Callable[[Any], str] | None = None) -> Figure:
    """`VARIABLE ?= value` of the Makefile (a `$(if …,a,b)` default: its last branch, the
    value of a run without PYTEST_ARGS)."""

    def read() -> str:
        found = re.search(rf"^{variable} \?= (.+)$", _makefile(), re.MULTILINE)
        assert found, f"the Makefile sets no default for {variable}"
        value = found.group(1).strip()
        branches = re.fullmatch(r"\$\(if [^,]+,([^,]*),([^,)]*)\)", value)
        return branches.group(2) if branches else value

    return Figure(read, show or str)


def makefile_recipe(target: str) -> list[str]:
    """The commands of a Makefile target, with `$(BIN)/` left out and continuation lines joined."""
    found = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", _makefile(), re.MULTILINE)
    assert found, f"the Makefile has no target {target}"
    recipe = found.group(1).replace("\\\n\t", " ")
    return [" ".join(line.replace("$(BIN)/", "").split()) for line in recipe.splitlines()]


def makefile_target_variable(target: str, variable: str) -> Figure:
    """A target-specific `target: VARIABLE = value` of the Makefile."""

    def read() -> str:
        found = re.search(rf"^{re.escape(target)}: {variable} = (.+)$", _makefile(), re.MULTILINE)
        assert found, f"the Makefile sets no {variable} for {target}"
        return found.group(1).strip()

    return Figure(read)


def script_default(script: str, variable: str, show: Callable[[Any], str] | None = None) -> Figure:
    """The `${VARIABLE:-default}` a process script (bin/web, tools/bin/mailsim, …) falls back on."""

    def read() -> str:
        found = re.search(rf"\$\{{{variable}:-([^}}]*)\}}", (REPO / script).read_text())
        assert found, f"{script} has no default for {variable}"
        return found.group(1)

    return Figure(read, show or str)


def _makefile() -> str:
    return (REPO / "Makefile").read_text()


# --- How the documents write figures -----------------------------------------------------

_WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"),
    *("nineteen", "twenty"),
]


def number(value: Any) -> str:
    """5.0 as 5, 0.5 as 0.5, anything else as it prints."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def thousands(value: float) -> str:
    """1000 as 1,000."""
    return f"{value:,}".removesuffix(".0")


def words(value: int | str) -> str:
    """6 as six (up to twenty)."""
    return _WORDS[int(value)]


def seconds(span: timedelta | float) -> str:
    return number(span.total_seconds() if isinstance(span, timedelta) else float(span))


def minutes(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 60)


def hours(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 3600)


def days(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 86400)


def backticked(names: list[str]) -> str:
    """['a', 'b', 'c'] as `a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def listed(names: list[str]) -> str:
    """['a', 'b', 'c'] as `a`, `b`, `c` (a table cell's list)."""
    return ", ".join(f"`{name}`" for name in names)
