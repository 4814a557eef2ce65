"""What a customer's address may contain beyond what EmailValidator checks."""

import unicodedata

from rest_framework.exceptions import ValidationError

# Control (Cc), format (Cf: bidi overrides, zero-width joiners) and surrogate (Cs) characters
# pass Django's EmailValidator in a quoted local part or a domain label. None is part of an
# address a person types; they hide text from the operators who read it in the admin and logs
# (U+202E reverses it, ESC drives a terminal), so they are refused rather than stored.
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs"}


def reject_invisible_characters(value: str) -> None:
    for char in value:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            raise ValidationError(
                f"The address contains the invisible or control character U+{ord(char):04X}, "
                "which no email address needs."
            )
