"""email_preview: write an email's HTML and text parts to files, to open before customers see
them (docs/email-content.md, "Previewing and test-sending")."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.content.preview_files import (
    PreviewRefused,
    email_kinds,
    preview_of_order,
    preview_of_sample,
    preview_write,
)

# Relative to where the command runs: the repository root in development, whose var/ is
# gitignored.
DEFAULT_OUT = Path("var") / "email-previews"


class Command(BaseCommand):
    help = (
        "Write an email's HTML and text parts (subject on the first line) to files: the sample "
        "order's, or with --order that order's (its stored email if it has one)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kind", help=f"the email kind: {', '.join(email_kinds())}")
        parser.add_argument(
            "--locale", help="the language (default: the order's, else the site's LANGUAGE_CODE)"
        )
        parser.add_argument("--order", help="an order id: that order's email instead of the sample order's")
        parser.add_argument(
            "--out", type=Path, default=DEFAULT_OUT, help=f"the folder for the files (default {DEFAULT_OUT}/)"
        )

    def handle(
        self, *args: Any, kind: str, locale: str | None, order: str | None, out: Path, **_: Any
    ) -> None:
        try:
            preview = preview_of_order(kind, order, locale) if order else preview_of_sample(kind, locale)
            files = preview_write(preview, out)
        except PreviewRefused as exc:
            raise CommandError(str(exc)) from exc
        except OSError as exc:
            raise CommandError(f"Cannot write the preview to {out}: {exc}") from exc
        self.stdout.write(f"{preview.kind} ({preview.locale}): {preview.origin}.")
        self.stdout.write(f"subject: {preview.subject}")
        self.stdout.write(f"html:    {files.html}")
        self.stdout.write(f"text:    {files.text}")
