"""No product module reaches a dependency's private name (docs/architecture.md, "Layers").

A name with a leading underscore on a third-party module or object (`amqp.serialization.
_serialize_properties`, `message._serialize_properties()` on an `amqp.Message`, `from celery.
_state import ...`) is that library's internals: it may change in any release, and then we find
out in production. Read from the source with `ast`, no service needed.

What counts, on a third-party package (not ours, not the standard library):
- importing a private name or from a private module: `from x import _y`, `import x._y`;
- an attribute with a leading underscore reached from a third-party name: on an imported
  module, class or function, on what calling it returns, on a local name assigned from such an
  expression or a parameter annotated with a third-party type, and `getattr(obj, "_y")`;
- `super()._y` in a class with a third-party base: overriding and calling the base's internals.

What does not: our own underscore names (`self._pending`, `relay._fast_path_paused_until`),
dunder names (`__version__`), the standard library (`os._exit` is documented), and the few
underscore names their libraries document as public (DOCUMENTED_PUBLIC). Attributes a class
inherits from a third-party base and reaches through `self` are beyond what the source alone
tells; a reviewer catches those.
"""

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.unit.test_code_shape import OUR_PACKAGES, PRODUCT_PACKAGES, REPO

# Underscore names that their library documents as public API.
DOCUMENTED_PUBLIC = {
    "_meta": "Django's Model _meta API (docs: ref/models/meta)",
    "_asdict": "named tuples' public methods (collections.namedtuple)",
    "_fields": "named tuples' public methods",
    "_make": "named tuples' public methods",
    "_replace": "named tuples' public methods",
}

# Known uses, each with why it is still there. A use that is gone fails the test too, so the
# list only shrinks.
KNOWN: dict[tuple[str, str], str] = {
    ("notifications/documents/page_text.py", "_page_box"): (
        "WeasyPrint (pinned) gives no public way to a page's laid-out boxes, which the check of an "
        "invoice's legal elements reads to know what the page shows; its Page.paint would need its "
        "undocumented PDF stream and a PDF interpreter instead"
    ),
}


@dataclass(frozen=True)
class PrivateUse:
    path: str
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name} ({self.how})"


def _is_private(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in DOCUMENTED_PUBLIC


def _is_third_party(module: str) -> bool:
    top = module.split(".")[0]
    ours_or_standard = top in OUR_PACKAGES or top in sys.stdlib_module_names or top == "__future__"
    return bool(top) and not ours_or_standard


def _module_level_imports(tree: ast.Module) -> set[str]:
    """Names bound anywhere in the module by importing a third-party module or object."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if _is_third_party(alias.name)
            }
        elif isinstance(node, ast.ImportFrom) and not node.level and _is_third_party(node.module or ""):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


class _Finder(ast.NodeVisitor):
    """One module: which names hold a third-party module or object, and where a private name
    is reached through one of them."""

    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.imported = _module_level_imports(tree)
        self.scopes: list[set[str]] = [set(self.imported)]
        self.classes: list[bool] = []  # for each enclosing class: has it a third-party base?
        self.found: list[PrivateUse] = []

    def _third_party(self, node: ast.AST | None) -> bool:
        """Whether an expression is a third-party module or object, or derived from one."""
        while isinstance(node, ast.Attribute | ast.Call | ast.Subscript | ast.Await | ast.Starred):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self.scopes[-1]

    def _report(self, node: ast.AST, name: str, how: str) -> None:
        self.found.append(PrivateUse(self.path, getattr(node, "lineno", 0), name, how))

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name) and value is not None and self._third_party(value):
            self.scopes[-1].add(target.id)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if _is_third_party(alias.name) and any(_is_private(part) for part in parts):
                self._report(node, alias.name, "import of a private module")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module or not _is_third_party(node.module):
            return
        if any(_is_private(part) for part in node.module.split(".")):
            self._report(node, node.module, "import from a private module")
        for alias in node.names:
            if _is_private(alias.name):
                self._report(node, f"{node.module}.{alias.name}", "import of a private name")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        scope = set(self.scopes[-1])
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        scope |= {argument.arg for argument in arguments if self._third_party(argument.annotation)}
        self.scopes.append(scope)
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            self.visit(base)
        self.classes.append(any(self._third_party(base) for base in node.bases))
        for statement in node.body:
            self.visit(statement)
        self.classes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self._bind(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        self._bind(node.target, node.value or node.annotation)

    def visit_withitem(self, node: ast.withitem) -> None:
        self.generic_visit(node)
        if node.optional_vars is not None:
            self._bind(node.optional_vars, node.context_expr)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if not _is_private(node.attr):
            return
        if self._third_party(node.value):
            self._report(node, node.attr, f"on {ast.unparse(node.value)}")
        elif _is_super_call(node.value) and self.classes and self.classes[-1]:
            self._report(node, node.attr, "on super() of a third-party base")

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        reflective = isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr")
        if reflective and len(node.args) >= 2 and self._third_party(node.args[0]):
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and _is_private(name.value):
                self._report(node, name.value, f"{ast.unparse(node.func)} on {ast.unparse(node.args[0])}")


def _is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def private_uses(source: str, path: str = "<snippet>") -> list[PrivateUse]:
    tree = ast.parse(source)
    finder = _Finder(path, tree)
    finder.visit(tree)
    return finder.found


def _product_modules() -> list[Path]:
    return sorted(path for package in PRODUCT_PACKAGES for path in (REPO / package).rglob("*.py"))


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("from amqp.serialization import _write_table", ["amqp.serialization._write_table"]),
        ("import amqp.serialization\namqp.serialization._serialize_properties(m)", ["_serialize_properties"]),
        (
            "import amqp\nmessage = amqp.Message(b'')\nproperties = message._serialize_properties()",
            ["_serialize_properties"],
        ),
        ("from amqp import Message\ndef f():\n    return Message(b'')._frame_writer", ["_frame_writer"]),
        (
            "import amqp\ndef f(channel: amqp.Channel):\n    channel._confirm_selected = True",
            ["_confirm_selected"],
        ),
        ("from kombu import Connection\nwith Connection('amqp://') as c:\n    c._close()", ["_close"]),
        ("from celery._state import get_current_app", ["celery._state"]),
        ("import celery._state", ["celery._state"]),
        ("from celery import current_app as app\nx = getattr(app, '_tasks')", ["_tasks"]),
        (
            "from django_celery_results.backends.database import DatabaseBackend\n"
            "class B(DatabaseBackend):\n"
            "    def _store_result(self, *a):\n"
            "        return super()._store_result(*a)",
            ["_store_result"],
        ),
    ],
)
def test_a_private_name_of_a_dependency_is_found(source, names):
    assert [use.name for use in private_uses(source)] == names


@pytest.mark.parametrize(
    "source",
    [
        "import celery\nversion = celery.__version__",  # dunder
        "class Ours:\n    _x = 1\n    def f(self):\n        return self._x + super()._y()",  # our own
        "from messaging.relay import relay\nrelay._fast_path_paused_until = 0.0",  # our own module
        "from . import relay\nrelay._fast_path_paused_until = 0.0",
        "import os\nos._exit(137)",  # the standard library
        "from urllib.parse import urlsplit\nurlsplit('amqp://h')._replace(path='/')",
        "from django.utils.translation import gettext_lazy as _\nlabel = _('Orders')",  # an alias
        "from django.contrib.auth.models import User\nfields = User._meta.get_fields()",  # documented
        "import amqp\ndef f(message):\n    return message._x\ndef g():\n    message = amqp.Message(b'')",
    ],
)
def test_what_is_ours_or_documented_is_not_a_private_use(source):
    assert private_uses(source) == []


def test_no_product_module_reaches_a_dependencys_private_name():
    modules = _product_modules()
    assert len(modules) > 100  # a check over nothing would pass whatever the code looks like
    found = [use for path in modules for use in private_uses(path.read_text(), str(path.relative_to(REPO)))]
    unexplained = [str(use) for use in found if (use.path, use.name) not in KNOWN]
    assert not unexplained, "a dependency's private name (use its public API):\n" + "\n".join(unexplained)
    gone = set(KNOWN) - {(use.path, use.name) for use in found}
    assert not gone, f"no longer used, remove from KNOWN: {sorted(gone)}"
