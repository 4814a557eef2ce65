"""The README stays readable as plain text (a terminal, a diff, an editor without wrapping): no
line is longer than 200 characters. A table whose rows would be longer becomes a list, or
moves its notes below it; a Markdown table row cannot be wrapped."""

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
MAX_LINE = 200


def long_lines(text: str) -> list[str]:
    return [
        f"README.md:{number}: {len(line)} characters"
        for number, line in enumerate(text.splitlines(), start=1)
        if len(line) > MAX_LINE
    ]


def test_no_readme_line_is_over_200_characters():
    too_long = long_lines(README.read_text())
    assert not too_long, "rewrap these:\n" + "\n".join(too_long)


def test_a_long_line_is_reported_with_its_number():
    text = "\n".join(["short", "x" * MAX_LINE, "y" * (MAX_LINE + 1)])
    assert long_lines(text) == ["README.md:3: 201 characters"]
