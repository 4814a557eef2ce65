"""The pre-commit configuration parses and runs what CONTRIBUTING.md says it runs, with the
virtualenv's own tools and test files that exist."""

import shlex
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def _hooks() -> dict[str, dict]:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    return {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}


def test_the_hooks_are_ruff_and_the_shape_check():
    assert {"ruff-check", "ruff-format", "code-shape"} <= set(_hooks())


def test_every_hook_runs_a_tool_of_the_virtualenv_on_files_that_exist():
    for hook_id, hook in _hooks().items():
        command = shlex.split(hook["entry"])
        assert hook["language"] == "system", hook_id  # nothing downloaded: the pinned tools
        assert command[0] in (".venv/bin/ruff", ".venv/bin/python"), hook_id
        named_files = [word for word in command if word.endswith(".py")]
        assert all((REPO / path).is_file() for path in named_files), (hook_id, named_files)
