"""The Makefile's .PHONY names exactly its command targets: a phony name without a rule hides
a typo, and a command target missing from .PHONY stops running once a file of its name exists
(`make test` with a folder called test)."""

import re
import subprocess
from pathlib import Path

import pytest

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"


def _phony_and_commands() -> tuple[set[str], set[str]]:
    text = MAKEFILE.read_text()
    phony_line = re.search(r"^\.PHONY:(.*)$", text, re.MULTILINE)
    assert phony_line is not None, "the Makefile declares its phony targets"
    phony = set(phony_line.group(1).split())
    # Rules whose target is a plain name; file targets hold a path ($(BIN)/.installed, var/...).
    commands = set(re.findall(r"^([a-z][a-z-]*):(?!=)", text, re.MULTILINE))
    return phony, commands


def test_phony_names_every_command_target_and_nothing_else():
    phony, commands = _phony_and_commands()
    assert phony == commands, {"phony without a rule": phony - commands, "not phony": commands - phony}


def _test_target_commands(pytest_args: str) -> str:
    """What `make test` would run for these PYTEST_ARGS (make -n prints and runs nothing)."""
    done = subprocess.run(
        ["make", "-n", "-s", "test", f"PYTEST_ARGS={pytest_args}"],
        cwd=MAKEFILE.parent,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


@pytest.mark.parametrize(
    ("pytest_args", "starts_services"),
    [
        ("", True),
        ("--junitxml=/tmp/run.xml", True),
        ("-x", True),
        ("tests/integration/test_pipeline.py", True),
        ("tests/unit tests/integration/test_pipeline.py", True),
        ("tests/unit", False),
        ("tests/unit/test_makefile.py -x", False),
    ],
)
def test_make_test_starts_the_services_unless_it_runs_unit_tests_alone(pytest_args, starts_services):
    # Options alone run the whole suite: it once read them as "no path outside tests/unit",
    # and a full run with --junitxml found no browser installed.
    commands = _test_target_commands(pytest_args)
    assert ("scripts/ensure-services.sh" in commands) is starts_services, commands
    assert ("scripts/ensure-browser.sh" in commands) is starts_services, commands
