"""What the laid-out pages of a document show (notifications/documents/page_text.py), read from
small documents laid out by WeasyPrint in this process, and compared as the check of the legal
elements compares (legal_elements.comparable_text). The hidings an admin's template may try are
in tests/integration/invoices/test_invoice_template_real_documents.py, through the admin."""

import pytest
from tinycss2.color5 import parse_color

from notifications.documents.contrast import WHITE, contrast_ratio, srgb
from notifications.documents.layout import pdf_layout
from notifications.documents.page_text import UNSHOWN
from notifications.documents.painted_colours import MIN_SHOWN_CONTRAST
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.parametrize(
    ("first", "second", "ratio"),
    [("black", "white", 21.0), ("white", "white", 1.0), ("#234", "#234", 1.0)],
)
def test_the_contrast_ratio_is_wcag_s(first, second, ratio):
    assert contrast_ratio(srgb(parse_color(first)), srgb(parse_color(second))) == pytest.approx(
        ratio, abs=0.01
    )


def test_light_grey_on_white_stands_out_and_a_paler_grey_does_not():
    # page_text.py's reason for MIN_SHOWN_CONTRAST: #ccc on white is still read
    assert contrast_ratio(srgb(parse_color("#ccc")), WHITE) >= MIN_SHOWN_CONTRAST
    assert contrast_ratio(srgb(parse_color("#eee")), WHITE) < MIN_SHOWN_CONTRAST


@pytest.mark.parametrize(
    "colour", ["lab(20% 0 0)", "oklch(0.3 0.1 200)", "hsl(0 0% 10%)", "device-cmyk(0 0 0 0.9)"]
)
def test_a_dark_colour_of_any_space_stands_out_from_white(colour):
    assert contrast_ratio(srgb(parse_color(colour)), WHITE) > 7


def test_a_block_broken_across_lines_and_pages_is_read_whole_and_each_margin_box_apart():
    # given: a narrow, short page: the address's words fall on several lines and two pages,
    # with the first page's header between them
    address = "Musterstraße 123, 10115 Berlin-Charlottenburg, Deutschland, Europa"
    html = (
        "<style>@page { size: 50mm 24mm; margin: 6mm 4mm; @top-center { content: 'Head'; } }"
        f"p {{ margin: 0; orphans: 1; widows: 1; }}</style><p>{address}</p>"
    )
    # when
    layout = pdf_layout(html)
    # then
    blocks = [block.strip() for block in layout.shown_text.split(UNSHOWN) if block.strip()]
    assert layout.pages > 1
    assert comparable_text(blocks[0]) == comparable_text(address)
    assert blocks[1:] == ["Head"] * layout.pages


def test_a_table_cell_broken_across_pages_is_read_whole_between_the_row_s_other_cells():
    name = " ".join(f"word{n}" for n in range(40))
    html = (
        "<style>@page { size: 80mm 30mm; margin: 4mm; } td { vertical-align: top; }</style>"
        f"<table><tr><td>{name}</td><td>19.99</td></tr></table>"
    )
    layout = pdf_layout(html)
    assert layout.pages > 1
    assert _shows(html, name)


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='text-transform: lowercase'>{VALUE}</p>",
        f"<p style='text-transform: full-width'>{VALUE}</p>",
        "<p><b>DE</b>999<i>888</i>777</p>",
        f"<p style='width: 12mm; overflow-wrap: anywhere'>{VALUE}</p>",
        f"<p style='color: rgba(0, 0, 0, 0.5)'>{VALUE}</p>",
        f"<p style='background: black; color: #eee'>{VALUE}</p>",
        f"<div style='transform: rotate(180deg)'>{VALUE}</div>",
        f"<div style='overflow: hidden; height: 5mm'>{VALUE}</div>",
    ],
    ids=[
        "lowercase",
        "full-width",
        "in parts",
        "broken mid-word",
        "half transparent",
        "light on dark",
        "upside down",
        "clipped below",
    ],
)
def test_a_value_a_page_shows_is_read(html):
    assert _shows(html)


@pytest.mark.parametrize(
    "html",
    [
        "<p>DE999<span style='color: white'>888</span>777</p>",
        f"<p style='background: #ccc; color: #ddd'>{VALUE}</p>",
        f"<p style='opacity: 0.5'><span style='opacity: 0.1'>{VALUE}</span></p>",
        f"<p style='width: 10mm; overflow: hidden; white-space: nowrap'>{VALUE}</p>",
        f"<p style='width: 10mm; overflow: hidden; white-space: nowrap; text-overflow: ellipsis'>{VALUE}</p>",
        f"<p style='transform: scale(0)'>{VALUE}</p>",
        f"<p style='position: relative; top: -100mm'>{VALUE}</p>",
    ],
    ids=[
        "a part white",
        "pale on pale",
        "opacities multiplied",
        "cut by a clip",
        "cut by an ellipsis",
        "flattened",
        "above the page",
    ],
)
def test_a_value_a_page_does_not_show_whole_is_not_read(html):
    assert not _shows(html)
