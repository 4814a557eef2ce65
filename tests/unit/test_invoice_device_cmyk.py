"""A device-cmyk colour as PDF viewers paint it (notifications/documents/contrast.py): process
inks, not 1 - ink, so that text in a colour a viewer paints like its background is not read,
and text a viewer paints apart from it is. The HTML is laid out by WeasyPrint in this process."""

import pytest
from tinycss2.color5 import parse_color

from notifications.documents.contrast import WHITE, contrast_ratio, srgb
from notifications.documents.layout import pdf_layout
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"


def _shows(html: str) -> bool:
    return comparable_text(VALUE) in comparable_text(pdf_layout(html).shown_text)


def _bytes(colour: str) -> tuple[int, ...]:
    return tuple(round(channel * 255) for channel in srgb(parse_color(colour)))


@pytest.mark.parametrize(
    ("cmyk", "painted"),
    [
        ("device-cmyk(0 0 0 0)", (255, 255, 255)),
        ("device-cmyk(1 0 0 0)", (0, 173, 239)),
        ("device-cmyk(0 1 0 0)", (236, 0, 140)),
        ("device-cmyk(0 0 1 0)", (255, 242, 0)),
        ("device-cmyk(1 1 1 1)", (0, 0, 0)),
    ],
    ids=["paper", "cyan", "magenta", "yellow", "every ink"],
)
def test_a_process_colour_is_the_colour_a_viewer_paints(cmyk, painted):
    assert _bytes(cmyk) == painted


def test_a_tint_lies_between_paper_and_its_ink():
    red, green, blue = srgb(parse_color("device-cmyk(0.5 0 0 0)"))
    assert (red, green) == pytest.approx((0.5, (1 + 0.6784) / 2))
    assert blue > green
    assert contrast_ratio(srgb(parse_color("device-cmyk(0 0 0 1)")), WHITE) > 7  # black text reads


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='background: rgb(0 166 80); color: device-cmyk(1 0 1 0)'>{VALUE}</p>",
        f"<p style='background: device-cmyk(1 0 1 0); color: rgb(0 166 80)'>{VALUE}</p>",
    ],
    ids=["green inks on their painted colour", "their painted colour on green inks"],
)
def test_a_value_in_a_colour_a_viewer_paints_like_its_background_is_not_read(html):
    assert not _shows(html)


def test_a_value_in_cyan_ink_on_the_screen_s_cyan_is_read():
    # naively both rgb(0 255 255); a viewer paints the ink rgb(0 173 239), which stands out
    assert _shows(f"<p style='background: rgb(0 255 255); color: device-cmyk(1 0 0 0)'>{VALUE}</p>")
