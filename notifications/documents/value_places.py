"""Where the text of a document's pages (page_text.py) shows a value, and whether as the value:
what the check of its legal elements (legal_elements.py) asks of each. Texts are compared as
comparable_text makes them, so that a value counts however a page sets it (in capitals, in
full-width forms, wrapped across lines or pages).

A value is shown where the page shows it whole and apart. Whole: read as one word but where the
value has a space of its own, or the page breaks a line (a value wraps); a gap the page draws
inside it (its first letter raised off its line by ::first-letter, or set apart by a margin)
shows two words, not the value. Apart: with a space, the end of a text or a character that is
neither a letter, a digit nor a mark at each end, and not a number's part (1.19 %, 49.90,5).
And a value shown apart in one place may not be run into a number in another (a total in fine
print and 1 before it in the totals' row: the reader reads 149,90 there): a value that starts
or ends with a digit must be run into no digit, nor into a group or decimal separator and a
digit, wherever the page shows it whole, but where that place is within another value of the
document shown there (a line's 2,00 € within another's 12,00 €) or within words the template
writes itself (up to 17 % off, which holds a 7 % rate): a number the template writes is its own
text, as any it writes is (docs/orders.md says what that leaves open)."""

import html
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from notifications.documents.digit_groups import GROUPING
from notifications.documents.painted_colours import FAINT

# Left out of both sides of the comparison: the hyphen WeasyPrint adds where it breaks a word
# across lines (its hyphenate-character, U+2010 unless a template sets another) and the soft
# hyphen where it may; neither is part of a value.
_BREAK_HYPHENS = str.maketrans("", "", "\u2010\u00ad")
# Group and decimal separators of a number, as locales write them (1,159.70; 1.159,70; 1'159.70;
# Arabic's), and the characters drawn like one of them: a low single quotation mark (U+201A) is
# a comma's glyph, a middle dot (U+00B7, U+2027, U+2219, U+22C5) a decimal point in British
# typography, a prime (U+2032, U+2035) or a grave accent the Swiss apostrophe, an Arabic comma
# (U+060C) Arabic's. Between digits they make one number of both sides.
_SEPARATORS = frozenset(".,'\u2019\u066b\u066c\u201a\u00b7\u2027\u2219\u22c5\u2032\u2035`\u060c")
# Spaces that group a number's digits: the no-break space the reading of the page writes between
# two digits a word space apart or less (digit_groups.GROUPING, as Russian groups them: 1 159,70),
# and those narrower than a word space that typography sets between a number's groups (U+202F is
# CLDR's group separator for French, U+2009 the SI's; U+2006, U+200A). One between two digits
# (or pale ones, painted_colours.FAINT) makes one number of both sides, as a comma does, and is
# left out as one; a wider gap the reading writes as a space, which sets them apart.
_DIGIT_GROUP_SPACE = re.compile(f"(?<=[\\d{FAINT}])[{GROUPING}\u2006\u2009\u200a\u202f](?=[\\d{FAINT}])")
# What a template writes that is not its own text: variables, tags and comments.
_TEMPLATE_PARTS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
# Where a line ends in the text of the pages: a value may wrap there.
_LINE_BREAKS = frozenset("\n\r\u2028\u2029")


@dataclass(frozen=True)
class Words:
    """A text as compared: `text`, its words run together; `starts`, the offsets where a word
    starts (and where the last ends), in order in `ordered`; `breaks`, those of them a line
    break comes before."""

    text: str
    ordered: tuple[int, ...]
    starts: frozenset[int]
    breaks: frozenset[int]


def comparable_text(text: str) -> str:
    """`text` as the check compares it, so that a value counts however a page sets it: in
    compatibility forms folded (text-transform: full-width) and case folded (uppercase), without
    spaces (a value broken across lines or pages, wherever they break), break hyphens or
    invisible formatting characters (a zero-width space, a joiner, a bidi mark), which show
    nothing between the letters either side; without a space that groups two digits
    (_DIGIT_GROUP_SPACE)."""
    return comparable_words(text).text


def comparable_words(text: str) -> Words:
    """comparable_text's words: the runs of `text` between its spaces and line breaks."""
    grouped = _DIGIT_GROUP_SPACE.sub("", text)  # before NFKC takes a U+202F for a space
    folded = unicodedata.normalize("NFKC", grouped).casefold().translate(_BREAK_HYPHENS)
    words: list[str] = []
    starts, breaks = [0], set()
    word, broken = "", False  # the word so far; whether a line break came since the last word
    for char in folded:
        if char.isspace():
            if word:
                words.append(word)
                starts.append(starts[-1] + len(word))
                word = ""
            broken = broken or char in _LINE_BREAKS
        elif unicodedata.category(char) != "Cf":
            if not word and broken:
                breaks.add(starts[-1])
            word, broken = word + char, False
    if word:
        words.append(word)
        starts.append(starts[-1] + len(word))
    return Words("".join(words), tuple(starts), frozenset(starts), frozenset(breaks))


@dataclass(frozen=True)
class Others:
    """What a value run into a number may lie within: `values`, the comparable_words of the
    document's other values, and `written`, the comparable text of the numbers and words its
    template writes itself (written_text)."""

    values: Iterable[Words] = ()
    written: str = ""


def written_text(template: str) -> str:
    """The comparable text of what an HTML template writes itself: its source without its tags,
    variables and comments (each a break), HTML's character references read."""
    return comparable_text(html.unescape(_TEMPLATE_PARTS.sub(" ", template)))


def value_shown(value: str, page: Words, others: Others = Others()) -> bool:
    """Whether the page (comparable_words of its text) shows `value` whole and apart somewhere,
    and nowhere whole and run into a number but within another value of the document shown
    there, or within a number the template writes itself (`others`)."""
    own = comparable_words(value)
    if not own.text:
        return True
    places = [found for found in _places(own.text, page.text) if _whole(own, page, found)]
    shown = any(_apart(own.text, page, found) for found in places)
    return shown and not any(
        _run_into_number(own.text, page, found) and not _within_another(own.text, page, found, others)
        for found in places
    )


def _places(value: str, text: str) -> list[int]:
    found, places = text.find(value), []
    while found >= 0 and value:
        places.append(found)
        found = text.find(value, found + 1)
    return places


def _whole(value: Words, page: Words, found: int) -> bool:
    """Whether no word of the page starts inside the value's place `found` but where the value's
    own words do, or after a line break."""
    first, last = bisect_right(page.ordered, found), bisect_left(page.ordered, found + len(value.text))
    return all(start - found in value.starts or start in page.breaks for start in page.ordered[first:last])


def _apart(value: str, page: Words, found: int) -> bool:
    """Whether the value at `found` is apart at both ends: a word's start or end there, or a
    character neither a letter, a digit nor a mark, and no number run on past it."""
    text, end = page.text, found + len(value)
    starts = found in page.starts or not (_joins(text[found - 1]) or _number_before(value, page, found))
    return starts and (end in page.starts or not (_joins(text[end]) or _number_after(value, page, end)))


def _run_into_number(value: str, page: Words, found: int) -> bool:
    """Whether the value at `found` starts with a digit run on from a number before it, or ends
    with one a number runs on from, with no space between (a group space left out:
    _DIGIT_GROUP_SPACE)."""
    text, end = page.text, found + len(value)
    before = value[0].isdigit() and found not in page.starts
    after = value[-1].isdigit() and end not in page.starts
    before = before and (_digit(text[found - 1]) or _number_before(value, page, found))
    after = after and (_digit(text[end]) or _number_after(value, page, end))
    return before or after


def _within_another(value: str, page: Words, found: int, others: Others) -> bool:
    """Whether the value at `found` lies within another value of the document that the page
    shows there whole and apart (a line's 2,00 € within another's 12,00 €), or within words the
    template writes itself (Free delivery from 50,00 €, which holds a line's 0,00 €)."""
    first = page.ordered[bisect_right(page.ordered, found) - 1]
    last = page.ordered[bisect_left(page.ordered, found + len(value))]
    if others.written and page.text[first:last] in others.written:
        return True
    for other in others.values:
        if len(other.text) <= len(value) or value not in other.text:
            continue
        for offset in _places(value, other.text):
            start = found - offset
            shown = page.text.startswith(other.text, start) and _apart(other.text, page, start)
            if shown and _whole(other, page, start):
                return True
    return False


def _number_before(value: str, page: Words, found: int) -> bool:
    """Whether a value starting with a digit follows a digit and a group or decimal separator
    with no space (1.19 %, 1,159.70): the page shows another number, the value its tail."""
    separator = found - 1
    joined = value[0].isdigit() and found >= 2 and found not in page.starts and separator not in page.starts
    return joined and page.text[separator] in _SEPARATORS and _digit(page.text[separator - 1])


def _number_after(value: str, page: Words, end: int) -> bool:
    """Whether a value ending with a digit runs on into a group or decimal separator and a digit
    with no space (49.90,5; DE123456789.5): the page shows another number, the value its head."""
    digit = end + 1
    joined = (
        value[-1].isdigit() and digit < len(page.text) and end not in page.starts and digit not in page.starts
    )
    return joined and page.text[end] in _SEPARATORS and _digit(page.text[digit])


def _digit(char: str) -> bool:
    return char.isdigit() or char == FAINT


def _joins(char: str) -> bool:
    """A letter, a digit or a mark (a combining accent), or a faint text's character (a pale
    digit, painted_colours.py): read as one word with what it touches."""
    return char.isalnum() or unicodedata.category(char).startswith("M") or char == FAINT
