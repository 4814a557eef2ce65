"""Compile the emails' message catalogues (notifications/locale/*/LC_MESSAGES/django.po) into
the .mo files Django reads, with Babel: neither an image build nor a server needs GNU gettext's
msgfmt. `make messages` runs it after re-extracting the catalogues.

Like `msgfmt --check`, it refuses a translation whose placeholders do not match its msgid
(a missing %(number)s would otherwise fail at render time, in a customer's email).
Fuzzy entries are left out of the .mo, as msgfmt leaves them out.

    python scripts/compile_messages.py [LOCALE_DIR ...]   (default: notifications/locale)
"""

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

REPO = Path(__file__).resolve().parent.parent
DEFAULT_LOCALE_DIRS = [REPO / "notifications" / "locale"]


def catalogue_compile(po_path: Path) -> list[str]:
    """Write the .mo beside the .po; return the problems instead if there are any."""
    with po_path.open("rb") as po_file:
        catalogue = read_po(po_file, abort_invalid=True)
    problems = [
        f"{po_path}:{message.lineno}: {message.id!r}: {error}"
        for message, errors in catalogue.check()
        for error in errors
    ]
    if problems:
        return problems
    with po_path.with_suffix(".mo").open("wb") as mo_file:
        write_mo(mo_file, catalogue, use_fuzzy=False)
    return []


def main(locale_dirs: list[Path]) -> int:
    po_paths = sorted(path for folder in locale_dirs for path in folder.glob("*/LC_MESSAGES/*.po"))
    if not po_paths:
        print(f"no catalogues under {', '.join(map(str, locale_dirs))}", file=sys.stderr)
        return 1
    problems = [problem for path in po_paths for problem in catalogue_compile(path)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    for path in po_paths:
        print(f"compiled {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main([Path(arg).resolve() for arg in sys.argv[1:]] or DEFAULT_LOCALE_DIRS))
