"""The repository paths and the product's dotted modules that the documentation names, and
which of them do not exist (tests/unit/test_doc_references.py). Read from the Markdown and
the tracked files alone; no service needed.

What counts as a reference:

- a Markdown link's target, resolved from the document's own folder;
- in an inline code span, each word that looks like a path (it holds a `/` between names, or
  ends with a file suffix such as `.py` or `.md`), resolved from the repository's root, or
  from a folder an earlier reference of the same section is in (`operations/review/`, then
  `services.py`; `notifications/delivery/handler.py`, then `delivery/claims.py`); a glob
  (`bin/*`) must match at least one tracked file;
- in an inline code span, each dotted name that starts with one of our top-level packages
  (`orders.services.order_create`): every part but the last must be a package or module,
  and the last a module or a name that module defines (`orders.Order`: a model of the app);
- in a fenced block without a language (a layout tree), the names that start a line, each
  under the nearest folder above it with less indentation.

What does not, each because it is not a repository path:

- URLs and addresses (`https://…`, `mailto:`), and paths that start with `/` (HTTP paths
  such as `/admin/dashboard/`, or absolute paths of a host or a container);
- `var/…` and `.venv/…`: files the product and make write at run time, ignored by git;
- placeholders, which hold `<`, `>`, `{`, `}`, `…` or `...` (the folder before one still
  counts as named for what follows: `notifications/providers/<name>.py`, then `resend.py`);
- template code (`{% extends "notifications/email/base.txt" %}`): it names templates;
- a rate, a network or numbers with a slash (`600/min`, `127.0.0.0/8`, `400/404/500`), and a
  file suffix alone (`.po`);
- dotted names the code itself writes as a string literal: queue, exchange, task, check and
  permission names such as `orders.confirmations`, `notifications.E006` or
  `notifications.review_notification`, and a dead-letter queue or exchange named after one
  (`<queue>.dlq`, `<exchange>.dlx`);
- the made-up names a recipe uses to show a step, which the test lists by name.
"""

import fnmatch
import os
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
# Our packages at the top of the repository (the product's, tests and tools): a dotted name
# that starts with one of them names a module of ours.
TOP_PACKAGES = tuple(sorted(init.parent.name for init in REPO.glob("*/__init__.py")))
FILE_SUFFIXES = "cfg|css|example|html|in|ini|json|lock|md|mo|png|po|py|sh|svg|toml|txt|yaml|yml"

_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_DOTTED = re.compile(rf"^(?:{'|'.join(TOP_PACKAGES)})(?:\.[A-Za-z_]\w*)+$")
_TREE_DRAWING = " │├└─"
_PLACEHOLDER = re.compile(r"[<>{}…]|\.\.\.")
_SUFFIX = re.compile(rf"[^/.]\.(?:{FILE_SUFFIXES})$")


@cache
def tracked_files() -> frozenset[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    return frozenset(listed.stdout.splitlines())


@cache
def tracked_folders() -> frozenset[str]:
    return frozenset(str(parent) for path in tracked_files() for parent in PurePosixPath(path).parents)


def documents() -> list[str]:
    """README.md, CONTRIBUTING.md and every Markdown file under docs/."""
    return sorted(
        path
        for path in tracked_files()
        if path in ("README.md", "CONTRIBUTING.md") or (path.startswith("docs/") and path.endswith(".md"))
    )


def path_exists(path: str) -> bool:
    path = path.rstrip("/") or "."
    if any(mark in path for mark in "*?["):
        return any(fnmatch.fnmatch(tracked, path) for tracked in tracked_files())
    return path in tracked_files() or path in tracked_folders()


def module_exists(dotted: str) -> bool:
    """A package or module, or a name a module defines; `app.Model` for an app's model."""
    parts = dotted.split(".")
    for depth in range(1, len(parts) + 1):
        here, rest = "/".join(parts[:depth]), parts[depth:]
        if f"{here}.py" in tracked_files():
            return not rest or _defines(f"{here}.py", rest[0])
        if here not in tracked_folders():
            return depth > 1 and _package_defines("/".join(parts[: depth - 1]), parts[depth - 1])
    return True


def _package_defines(package: str, name: str) -> bool:
    modules = [f"{package}/__init__.py", f"{package}/models.py"]
    modules += sorted(path for path in tracked_files() if path.startswith(f"{package}/models/"))
    return any(_defines(module, name) for module in modules if module in tracked_files())


def _defines(module: str, name: str) -> bool:
    source = (REPO / module).read_text()
    # def, class, an assignment, or an import (on one line or one of a parenthesised list)
    definitions = (
        rf"^\s*(?:async\s+def|def|class)\s+{name}\b",
        rf"^{name}\s*[:=]",
        rf"^\s+{name},?$",
        rf"^from .* import .*\b{name}\b",
    )
    definition = "|".join(definitions)
    return re.search(definition, source, re.MULTILINE) is not None


@cache
def string_literals() -> frozenset[str]:
    """Every dotted string the product, its tools and tests write, such as queue names."""
    found: set[str] = set()
    for path in tracked_files():
        if path.endswith(".py"):
            found |= set(re.findall(r"[\"']([A-Za-z_]\w*(?:\.\w+)+)[\"']", (REPO / path).read_text()))
    return frozenset(found)


def is_runtime_name(dotted: str) -> bool:
    base = re.sub(r"\.(dlq|dlx)$", "", dotted)
    return dotted in string_literals() or base in string_literals()


def references(document: str, text: str) -> Iterator[tuple[int, int, bool, str]]:
    """(line number, section number, whether the name is anchored, name) for every reference
    in `text`, a Markdown file at `document` (relative to the repository): modules dotted,
    paths relative to the repository; those of prose that are not anchored (a link's target
    or a layout tree's entry is) may also be relative to a folder named earlier in the
    section."""
    fence: str | None = None
    section = 0
    tree: list[tuple[int, str]] = []  # (indentation, folder) of the layout tree's open folders
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _FENCE.match(line):
            fence, tree = (match.group(2), []) if fence is None else (None, [])
        elif fence == "":
            yield from ((number, section, True, name) for name in _tree_names(line, tree))
        elif fence is None:
            section += line.startswith("#")
            yield from ((number, section, anchored, name) for anchored, name in _prose_names(document, line))


def _tree_names(line: str, tree: list[tuple[int, str]]) -> list[str]:
    """The names that start a line of a layout tree, under their folder; `tree` is updated."""
    lead = re.split(r"\s{2,}", line.strip(_TREE_DRAWING), maxsplit=1)[0]
    names = []
    for word in re.split(r"[\s,]+", lead):
        if not _looks_like_path(word):
            break
        names.append(word)
    if not names:
        return []
    indentation = len(line) - len(line.lstrip(_TREE_DRAWING))
    while tree and tree[-1][0] >= indentation:
        tree.pop()
    parent = tree[-1][1] if tree else ""
    if len(names) == 1 and names[0].endswith("/"):
        tree.append((indentation, parent + names[0]))
    return [parent + name for name in names if not _not_in_repository(name)]


def _prose_names(document: str, line: str) -> list[tuple[bool, str]]:
    names = []
    for target in _LINK.findall(line):
        target = target.split("#")[0]
        if target and not _not_in_repository(target):
            target = os.path.normpath(PurePosixPath(document).parent / target) + "/" * target.endswith("/")
            names.append((True, target))
    for _, span in _CODE_SPAN.findall(line):
        if span.lstrip().startswith(("{%", "{{")):
            continue  # template code: the names in it are template names
        for word in re.split(r"[\s,;()]+", span):
            word = re.sub(r":[\w.]*$", "", word.split("=")[-1].strip("'\"").rstrip("."))  # path.py:function
            if _DOTTED.match(word) or (_looks_like_path(word) and not _not_in_repository(word)):
                names.append((False, word))
    return names


def _looks_like_path(word: str) -> bool:
    if _SUFFIX.search(word):
        return True
    segments = [segment for segment in word.split("/") if segment]
    # Not a rate (600/min), a network (127.0.0.0/8) or a list of numbers (400/404/500).
    return "/" in word and all(re.match(r"[A-Za-z_.*]", segment) for segment in segments)


def _not_in_repository(word: str) -> bool:
    """A URL, an HTTP path or a host's absolute path, or a file written at run time."""
    return ":" in word or word.startswith(("/", "var/", ".venv/", "#"))


def missing(document: str, text: str, examples: frozenset[str] = frozenset()) -> list[str]:
    """`document:line: name` for each reference of `text` that does not exist. A name that is
    not found from the root may be written relative to a folder an earlier reference of the
    same section is in (`operations/review/`, then `services.py`); `examples` are made-up
    names the document uses to show a recipe."""
    found, folders, current = [], [""], -1
    for number, section, anchored, name in references(document, text):
        if section != current:
            folders, current = [""], section
        if name in examples:
            continue
        if _PLACEHOLDER.search(name):
            # `notifications/providers/<name>.py`: what it names is the folder before the placeholder
            known = re.split(r"[^/]*(?:[<>{}…]|\.\.\.)", name)[0]
            folders[1:1] = [known] if known and path_exists(known) else []
            continue
        if _DOTTED.match(name):
            exists = module_exists(name) or is_runtime_name(name)
        else:
            where = next(
                (folder for folder in folders[: 1 if anchored else None] if path_exists(folder + name)), None
            )
            exists = where is not None
            if where is not None:
                folders[1:1] = _folders_of(where + name)
        if not exists:
            found.append(f"{document}:{number}: {name}")
    return found


def _folders_of(path: str) -> list[str]:
    """`a/b/` and `a/` for `a/b/c.py` or `a/b/c/`: where a later relative name may be."""
    here = PurePosixPath(path.rstrip("/"))
    parents = [here, *here.parents] if path.endswith("/") else list(here.parents)
    return [f"{parent}/" for parent in parents if str(parent) != "."]
