"""The Makefile's .PHONY names exactly its command targets: a phony name without a rule hides
a typo, and a command target missing from .PHONY stops running once a file of its name exists
(`make test` with a folder called test)."""

import re
from pathlib import Path

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
