"""The emails' catalogues: each compiled .mo says what its .po says (a .po edited without
`make messages` would otherwise go out untranslated), and Russian has every message."""

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[2] / "notifications" / "locale"
PO_FILES = sorted(LOCALE.glob("*/LC_MESSAGES/django.po"))


def _po(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, abort_invalid=True)


def _translations(catalogue: Catalog) -> dict[object, object]:
    """msgid -> msgstr of what a .mo carries: translated, not fuzzy, not the header."""
    return {
        message.id: message.string
        for message in catalogue
        if message.id and message.string and not message.fuzzy
    }


def test_the_catalogues_are_found():
    assert {path.parts[-3] for path in PO_FILES} == {"en", "ru"}


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda path: path.parts[-3])
def test_the_compiled_catalogue_matches_its_source(po_path):
    with po_path.with_suffix(".mo").open("rb") as file:
        compiled = read_mo(file)
    assert _translations(compiled) == _translations(_po(po_path)), "run `make messages`"


def test_every_message_has_a_russian_translation_and_both_languages_list_the_same_messages():
    russian = _po(LOCALE / "ru" / "LC_MESSAGES" / "django.po")
    english = _po(LOCALE / "en" / "LC_MESSAGES" / "django.po")
    missing = [message.id for message in russian if message.id and (not message.string or message.fuzzy)]
    assert not missing, f"translate these in notifications/locale/ru/LC_MESSAGES/django.po: {missing}"
    assert {message.id for message in russian} == {message.id for message in english}
