"""The product's image holds the runtime only: the product's code and process commands, the
packages of requirements.txt, and nothing of tools/, tests/ or the development set. No
container engine runs here, so the image's files are worked out from the Dockerfile and
.dockerignore (tests/image_files.py); tests/system/test_image_runtime.py runs the product from
those files on those packages alone."""

import tomllib

from tests.image_files import (
    build_context,
    dockerfile_stages,
    dockerignore_rules,
    ignored,
    image_files,
    locked_requirements,
    pip_installs,
    requirement_files,
)
from tools.drill.processes import REPO

APP = "/app/"
# Never in the product's image: the browser, the fake AWS, the chart, the test runner, the
# fuzzers and the linters.
DEVELOPMENT_ONLY = {"playwright", "moto", "matplotlib", "pytest", "schemathesis", "hypothesis"}
DEVELOPMENT_ONLY |= {"ruff", "mypy"}
PROCESS_COMMANDS = {"bin/web", "bin/worker", "bin/relay", "bin/beat", "bin/flower"}


def _product_packages() -> set[str]:
    """The product's packages: import-linter's root packages but the tools and the tests."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    return set(config["tool"]["importlinter"]["root_packages"]) - {"tools", "tests"}


def _in_image(target: str | None = None) -> set[str]:
    files = image_files(target)
    assert all(path.startswith(APP) for path in files), "the image's files live under /app"
    return {path.removeprefix(APP) for path in files}


def test_the_image_holds_the_whole_product_and_its_process_commands():
    image, context = _in_image(), build_context()
    assert {"manage.py", "requirements.txt", *PROCESS_COMMANDS} <= image
    assert len(_product_packages()) >= 8
    for package in _product_packages():
        # every file of the package the build context has (templates and catalogues too)
        assert {path for path in context if path.startswith(f"{package}/")} <= image, package
        assert f"{package}/__init__.py" in image, package
    assert any(path.endswith(".mo") for path in image), "the emails' compiled catalogues"
    assert any(path.endswith(".html") and "/templates/" in path for path in image), "the templates"


def test_the_image_holds_no_tool_test_or_development_file():
    image = _in_image()
    not_shipped = {"tools", "tests", "docs", "deploy", "scripts", ".ci", "var", ".venv", ".git"}
    assert sorted(path for path in image if path.split("/")[0] in not_shipped) == []
    names = {path.rsplit("/", 1)[-1] for path in image}
    assert not {name for name in names if name.startswith("test_") or name == "conftest.py"}
    assert not names & {"requirements-dev.txt", "requirements-tools.txt", ".env", "mailsim"}
    assert not [path for path in image if "__pycache__" in path or path.endswith(".pyc")]
    # and no process command of the image starts a tool
    for command in (path for path in image if path.startswith("bin/")):
        assert "tools" not in (REPO / command).read_text(), command


def test_the_image_installs_the_runtime_requirements_alone_with_their_hashes():
    [install] = pip_installs()
    assert requirement_files(install) == ["requirements.txt"]
    assert "--require-hashes" in install
    runtime = locked_requirements(REPO / "requirements.txt")
    assert len(runtime) > 30
    assert all(hashes for _, hashes in runtime.values()), "every package of the lock has its hashes"
    assert sorted(set(runtime) & DEVELOPMENT_ONLY) == []
    assert sorted(name for name in runtime if name.startswith(("pytest", "types-", "django-stubs"))) == []


def test_the_development_and_tools_sets_agree_with_the_runtime_one():
    # `make venv` installs requirements-dev.txt: the runtime's versions, the tools' and the tests'
    runtime = locked_requirements(REPO / "requirements.txt")
    tools = locked_requirements(REPO / "requirements-tools.txt")
    development = locked_requirements(REPO / "requirements-dev.txt")
    assert set(development) >= DEVELOPMENT_ONLY
    assert {"aiosmtpd", "honcho", "matplotlib"} <= set(tools)
    for lock in (tools, development):
        assert all(hashes for _, hashes in lock.values())
        assert {name: lock[name][0] for name in runtime} == {name: pin for name, (pin, _) in runtime.items()}
    assert {name: development[name][0] for name in tools} == {name: pin for name, (pin, _) in tools.items()}


def test_the_tools_stage_adds_the_tools_and_their_requirements_to_the_runtime():
    # docker-compose.yml's mail simulator runs from it (tests/unit/test_compose.py)
    tools = _in_image("tools")
    assert {"tools/bin/mailsim", "tools/mailsim/__main__.py", "tools/mailsim/smtp.py"} <= tools
    assert _in_image() <= tools
    assert not [path for path in tools if path.startswith("tests/")]
    installs = [requirement_files(install) for install in pip_installs("tools")]
    assert installs == [["requirements.txt"], ["requirements-tools.txt"]]
    assert [stage.name for stage in dockerfile_stages((REPO / "Dockerfile").read_text())][-1] is None


def test_dockerignore_patterns_match_as_docker_matches_them():
    rules = dockerignore_rules("var\n**/__pycache__\ndocs\n!docs/keep.md\n*.log\n")
    assert ignored("var/mailsim/db.sqlite3", rules)
    assert ignored("__pycache__/x.pyc", rules)
    assert ignored("notifications/admin/__pycache__/views.cpython-311.pyc", rules)
    assert ignored("docs/architecture.md", rules)
    assert not ignored("docs/keep.md", rules)
    assert ignored("run.log", rules)
    assert not ignored("logs/run.log", rules)  # `*` stays within one directory
    assert not ignored("variables.py", rules)
    assert not ignored("notifications/templates/base.html", rules)


def test_the_build_context_leaves_out_the_local_state_and_the_caches():
    context = build_context()
    assert "manage.py" in context
    local = {".git", ".venv", "var", ".env", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
    local |= {".hypothesis", ".import_linter_cache"}
    assert sorted(path for path in context if local & set(path.split("/"))) == []
