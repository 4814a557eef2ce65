"""The layers of docs/architecture.md are enforced: import-linter keeps the contracts of
pyproject.toml on this tree, and breaks one as soon as an import runs back up."""

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
LAYERS_BROKEN = (
    "Layers: config > (api | operations | intake) > privacy > notifications > orders > shops"
    " > messaging > platform BROKEN"
)


def _lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        # COLUMNS: wide enough that a contract's name is printed on one line, not wrapped.
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy_of_the_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(
        REPO,
        tree,
        ignore=shutil.ignore_patterns(".git", ".venv", "var", "node_modules", "__pycache__", "*.png"),
    )
    return tree


def test_the_tree_keeps_every_contract(tmp_path):
    result = _lint_imports(_copy_of_the_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_backbone_importing_a_feature_breaks_the_layers(tmp_path):
    # given the backbone's outbox made to know the email feature
    tree = _copy_of_the_tree(tmp_path)
    outbox = tree / "messaging" / "outbox.py"
    outbox.write_text(outbox.read_text() + "\nfrom notifications.models import Notification  # noqa\n")
    # when
    result = _lint_imports(tree)
    # then
    assert result.returncode != 0
    assert LAYERS_BROKEN in result.stdout
    assert "messaging.outbox -> notifications.models" in result.stdout


def test_the_email_feature_importing_the_operators_tools_breaks_the_layers(tmp_path):
    # given the email feature made to know the operators' app above it (the review screen
    # registering itself on the admin is the operators' app's doing, never the reverse)
    tree = _copy_of_the_tree(tmp_path)
    selectors = tree / "notifications" / "selectors.py"
    selectors.write_text(selectors.read_text() + "\nimport operations.apps  # noqa\n")
    # when
    result = _lint_imports(tree)
    # then
    assert result.returncode != 0
    assert LAYERS_BROKEN in result.stdout
    assert "notifications.selectors -> operations.apps" in result.stdout


def test_the_product_importing_drill_code_breaks_a_contract(tmp_path):
    tree = _copy_of_the_tree(tmp_path)
    tasks = tree / "messaging" / "tasks.py"
    tasks.write_text(tasks.read_text() + "\nimport tools.drill.naive_send  # noqa\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    assert "The product imports no tool or test code BROKEN" in result.stdout


def test_the_simulator_importing_the_drill_breaks_a_contract(tmp_path):
    # given the simulator made to lean on the drill's process helpers
    tree = _copy_of_the_tree(tmp_path)
    store = tree / "tools" / "mailsim" / "store.py"
    store.write_text(store.read_text() + "\nimport tools.drill.processes  # noqa\n")
    # when
    result = _lint_imports(tree)
    # then
    assert result.returncode != 0
    assert "The mail simulator stands alone (it plays a provider we do not own) BROKEN" in result.stdout
    assert "tools.mailsim.store -> tools.drill.processes" in result.stdout
