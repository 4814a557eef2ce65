"""The shape the code keeps (docs/architecture.md, "Layers"): small modules and functions,
and no import of our own apps hidden inside a function to dodge a cycle. Read from the
source with `ast`; no service needed."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRODUCT_PACKAGES = (
    "api",
    "apiauth",
    "config",
    "infra",
    "intake",
    "messaging",
    "notifications",
    "observability",
    "operations",
    "orders",
    "privacy",
    "shops",
    # The mail simulator is a tool, but keeps the product's shape.
    "tools/mailsim",
)
# Top-level names: an import of any tool (tools.drill, tools.bench, ...) counts as ours.
OUR_PACKAGES = (*{package.split("/")[0] for package in PRODUCT_PACKAGES}, "tests")
MAX_MODULE_LINES = 250
MAX_FUNCTION_LINES = 50


def _product_modules() -> list[Path]:
    return sorted(
        path
        for package in PRODUCT_PACKAGES
        for path in (REPO / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def _imports_of_our_packages(function: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in OUR_PACKAGES]
    return found


def test_the_product_modules_are_found():
    # a check over nothing would pass whatever the code looks like
    assert len(_product_modules()) > 100


def test_every_product_module_stays_small():
    too_long = {
        str(path.relative_to(REPO)): lines
        for path in _product_modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"split these by responsibility: {too_long}"


def test_every_product_function_stays_short_and_imports_our_apps_at_the_top():
    too_long, hidden_imports = [], []
    for path in _product_modules():
        where = path.relative_to(REPO)
        for function in _functions(ast.parse(path.read_text())):
            length = (function.end_lineno or function.lineno) - function.lineno + 1
            if length > MAX_FUNCTION_LINES:
                too_long.append(f"{where}:{function.name} ({length} lines)")
            # AppConfig.ready is Django's one place for importing what registers checks and signals.
            hidden = _imports_of_our_packages(function) if function.name != "ready" else []
            if hidden:
                hidden_imports.append(f"{where}:{function.name} imports {hidden}")
    assert not too_long, too_long
    assert not hidden_imports, hidden_imports


def test_the_shape_check_finds_a_hidden_import_and_a_long_function():
    source = "def f():\n    from orders.models import Order\n" + "    x = 1\n" * 60
    [function] = _functions(ast.parse(source))
    assert _imports_of_our_packages(function) == ["orders.models"]
    assert (function.end_lineno or function.lineno) - function.lineno + 1 > MAX_FUNCTION_LINES
