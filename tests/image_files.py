"""What the Docker image would hold, read from the Dockerfile and .dockerignore without a
container engine (none runs here): the build context is this tree less what .dockerignore
names, and a target's files are what the COPY instructions of its stage and the stages it
is built FROM take from that context. Read by tests/unit/test_image.py and by the runtime
check that runs the product from these files (tests/system/test_image_runtime.py).

Only the Dockerfile syntax we use is understood; anything else (COPY --from, ADD, a wildcard
source) is an error here rather than a guess."""

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tools.drill.processes import REPO

WORKDIR_DEFAULT = "/"


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)


def dockerfile_stages(text: str) -> list[Stage]:
    """The stages in order, each with its instructions (keyword upper-cased, its arguments
    with continuation lines joined and comment lines dropped, as Docker's parser does)."""
    stages: list[Stage] = []
    logical = ""
    for line in text.splitlines():
        if line.strip().startswith("#") or not line.strip():
            continue
        logical += line.rstrip()
        if logical.endswith("\\"):
            logical = logical[:-1] + " "
            continue
        keyword, _, arguments = logical.strip().partition(" ")
        logical = ""
        keyword = keyword.upper()
        if keyword == "FROM":
            words = arguments.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        else:
            stages[-1].instructions.append((keyword, arguments.strip()))
    return stages


def stage_chain(stages: list[Stage], target: str | None = None) -> list[Stage]:
    """The stages a target is built from, the first base first; no target: the last stage,
    what `docker build .` builds."""
    by_name = {stage.name: stage for stage in stages if stage.name}
    stage = by_name[target] if target else stages[-1]
    chain = [stage]
    while chain[0].base in by_name:
        chain.insert(0, by_name[chain[0].base])
    return chain


def _pattern_regex(pattern: str) -> re.Pattern:
    """A .dockerignore pattern (Go's filepath.Match plus `**`, any number of directories)."""
    pattern = str(PurePosixPath("/" + pattern)).lstrip("/")
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex, i = regex + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            regex, i = regex + ".*", i + 2
        elif pattern[i] == "*":
            regex, i = regex + "[^/]*", i + 1
        elif pattern[i] == "?":
            regex, i = regex + "[^/]", i + 1
        else:
            regex, i = regex + re.escape(pattern[i]), i + 1
    return re.compile(regex + r"\Z")


def dockerignore_rules(text: str) -> list[tuple[re.Pattern, bool]]:
    """Each pattern with whether it is an exception (`!pattern`), in the file's order."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            exception = line.startswith("!")
            rules.append((_pattern_regex(line.removeprefix("!").strip()), exception))
    return rules


def ignored(path: str, rules: list[tuple[re.Pattern, bool]]) -> bool:
    """Docker's rule: the last pattern that matches the path or one of its parent
    directories decides; an exception takes the path back in."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    verdict = False
    for regex, exception in rules:
        if any(regex.match(prefix) for prefix in prefixes):
            verdict = not exception
    return verdict


def build_context(root: Path = REPO) -> set[str]:
    """The files `docker build` sends from `root`: every file and symlink (not followed), as
    a path relative to root, less what .dockerignore excludes."""
    rules = dockerignore_rules((root / ".dockerignore").read_text())
    has_exceptions = any(exception for _, exception in rules)
    found = set()
    for directory, dirs, files in os.walk(root):
        relative = Path(directory).relative_to(root)
        for name in list(dirs):
            path = (relative / name).as_posix()
            if (root / path).is_symlink():
                dirs.remove(name)
                files.append(name)
            elif ignored(path, rules) and not has_exceptions:
                dirs.remove(name)
        found |= {(relative / name).as_posix() for name in files}
    return {path for path in found if not ignored(path, rules)}


def _copied(arguments: str, workdir: str, context: set[str]) -> dict[str, str]:
    words = shlex.split(arguments)
    assert not any(word.startswith("--") for word in words), f"COPY option not understood: {arguments}"
    *sources, destination = words
    target = PurePosixPath(workdir) / destination
    files = {}
    for source in sources:
        assert not set(source) & set("*?["), f"COPY wildcard not understood: {source}"
        source = source.rstrip("/") or "."
        if source in context:  # a file: into a directory when the destination says so
            into_directory = destination.endswith("/") or destination in (".", "./")
            files[str(target / PurePosixPath(source).name if into_directory else target)] = source
            continue
        prefix = "" if source == "." else source + "/"
        under = [path for path in context if path.startswith(prefix)]
        assert under, f"COPY {source}: nothing in the build context"
        files |= {str(target / path.removeprefix(prefix)): path for path in under}
    return files


def image_files(target: str | None = None, *, root: Path = REPO) -> dict[str, str]:
    """The files a target's image holds from the build context: the path in the image (under
    its WORKDIR, /app) → the path in this tree."""
    context = build_context(root)
    stages = dockerfile_stages((root / "Dockerfile").read_text())
    files: dict[str, str] = {}
    workdir = WORKDIR_DEFAULT  # a stage built FROM another keeps its WORKDIR
    for stage in stage_chain(stages, target):
        for keyword, arguments in stage.instructions:
            assert keyword != "ADD", "ADD is not understood here: use COPY"
            if keyword == "WORKDIR":
                workdir = str(PurePosixPath(workdir) / arguments)
            elif keyword == "COPY":
                files |= _copied(arguments, workdir, context)
    return files


def pip_installs(target: str | None = None, *, root: Path = REPO) -> list[list[str]]:
    """The arguments of every `pip install` that a target's stages RUN."""
    stages = dockerfile_stages((root / "Dockerfile").read_text())
    installs = []
    for stage in stage_chain(stages, target):
        for keyword, arguments in stage.instructions:
            for command in re.split(r"&&|;", arguments) if keyword == "RUN" else []:
                words = shlex.split(command)
                if words[:2] == ["pip", "install"]:
                    installs.append(words[2:])
    return installs


def requirement_files(install: list[str]) -> list[str]:
    return [install[i + 1] for i, word in enumerate(install) if word in ("-r", "--requirement")]


def locked_requirements(path: Path) -> dict[str, tuple[str, int]]:
    """A pip-compile lock file: each package's normalised name → (its pinned version, how many
    hashes it lists)."""
    text = path.read_text().replace("\\\n", " ")
    locked = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, *options = line.split()
        name, _, version = requirement.partition("==")
        assert version, f"{path.name}: {requirement} is not pinned with =="
        name = re.sub(r"[-_.]+", "-", name.split("[")[0]).lower()
        locked[name] = (version, sum(option.startswith("--hash=sha256:") for option in options))
    return locked
