"""docs/email-content.md lists every value an email template can use: a person writing an
override in the admin has only that table to go by."""

from pathlib import Path

from notifications.content.context import CONTEXT_VARIABLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "email-content.md"


def test_every_context_variable_is_in_the_table_of_the_doc():
    text = DOC.read_text()
    missing = [name for name in CONTEXT_VARIABLES if f"| `{{{{ {name} }}}}` |" not in text]
    assert not missing, f"add these to the variables table of docs/email-content.md: {missing}"
