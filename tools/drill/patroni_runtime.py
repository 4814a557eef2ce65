"""What Patroni runs on as the postgres user: a Python and a copy of Patroni's packages.

PostgreSQL refuses to run as root, and Patroni starts PostgreSQL itself, so Patroni runs as
the postgres user. That user often cannot run our virtualenv's Python (a pyenv under /root
is closed to it) nor read the virtualenv where a checkout lies (a clone under /root). So the
cluster gets a Python of the same version that the postgres user can run (ours if it can,
else the system's), and a directory of its own holding the installed files of Patroni and of
every package it needs, copied from this virtualenv: the versions pinned and hashed in
requirements-tools.txt, nothing downloaded. The same minor version matters: some of those
packages (psycopg's binary part, PyYAML) hold extension modules built for it.
"""

import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

POSTGRES_USER = "postgres"
# Patroni with its etcd v3 client and its PostgreSQL driver, as requirements-tools.in names it
PATRONI_REQUIREMENT = "patroni[etcd3,psycopg3]"


def python_for(user: str = POSTGRES_USER) -> str:
    """A Python of this version that `user` can run: this process's, else the system's."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys.executable, *(str(Path(folder) / version) for folder in ("/usr/local/bin", "/usr/bin"))]
    for candidate in candidates:
        if Path(candidate).exists() and _runs_as(user, candidate):
            return candidate
    raise RuntimeError(
        f"no {version} that the {user} user can run (tried {', '.join(candidates)}): Patroni runs as "
        f"{user}, since PostgreSQL refuses root; install Debian's {version} or a Python of this "
        "version outside a folder closed to other users"
    )


def _runs_as(user: str, python: str) -> bool:
    try:
        result = subprocess.run(
            [python, "-c", "import encodings"], user=user, capture_output=True, timeout=30, cwd="/"
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def packages_copy(target: Path, requirement: str = PATRONI_REQUIREMENT) -> list[str]:
    """Copy the installed files of `requirement` and of everything it needs (its extras'
    needs included) into `target`, a folder to put on PYTHONPATH; the distributions copied."""
    copied: list[str] = []
    for name in distributions_needed(requirement):
        distribution = metadata.distribution(name)
        for file in distribution.files or []:
            if file.parts[0] == "..":  # a console script outside site-packages: not imported
                continue
            destination = target / file
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(str(distribution.locate_file(file))), destination)
        copied.append(name)
    return copied


def distributions_needed(requirement: str) -> list[str]:
    """The distributions `requirement` needs, itself first, following each one's requirements
    whose markers hold for this Python and the extras asked of it."""
    extras_asked: dict[str, set[str]] = {}
    pending = [Requirement(requirement)]
    while pending:
        wanted = pending.pop()
        distribution = metadata.distribution(wanted.name)
        name = distribution.metadata["Name"].lower()
        known = extras_asked.get(name)
        if known is not None and set(wanted.extras) <= known:
            continue
        extras = extras_asked[name] = (known or set()) | set(wanted.extras)
        for line in distribution.requires or []:
            needed = Requirement(line)
            markers_hold = needed.marker is None or any(
                needed.marker.evaluate({"extra": extra}) for extra in extras | {""}
            )
            if markers_hold:
                pending.append(needed)
    return list(extras_asked)
