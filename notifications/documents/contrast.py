"""Colours as WeasyPrint paints them into a PDF, and how far one stands out from another (WCAG
2's contrast ratio): what page_text.py asks of a text's colour against its background. Plain
arithmetic on tinycss2's colours, which WeasyPrint's computed styles hold."""

from typing import Any

RGB = tuple[float, float, float]  # red, green and blue of sRGB, 0 to 1
WHITE: RGB = (1.0, 1.0, 1.0)
_LAB_SPACES = frozenset({"lab", "lch", "oklab", "oklch", "xyz-d50", "xyz-d65"})
# What a viewer paints for each mix of full process inks, cyan, magenta, yellow and black
# either 0 or 1 (poppler's and xpdf's table, which MuPDF took; close to the US Web Coated SWOP
# profile Acrobat uses by default): full cyan is rgb(0 173 239), not the screen's rgb(0 255 255).
_PROCESS_INKS: dict[tuple[int, int, int, int], RGB] = {
    (0, 0, 0, 0): (1.0, 1.0, 1.0),
    (0, 0, 0, 1): (0.1373, 0.1216, 0.1255),
    (0, 0, 1, 0): (1.0, 0.949, 0.0),
    (0, 0, 1, 1): (0.1098, 0.102, 0.0),
    (0, 1, 0, 0): (0.9255, 0.0, 0.549),
    (0, 1, 0, 1): (0.1412, 0.0, 0.0),
    (0, 1, 1, 0): (0.9294, 0.1098, 0.1412),
    (0, 1, 1, 1): (0.1333, 0.0, 0.0),
    (1, 0, 0, 0): (0.0, 0.6784, 0.9373),
    (1, 0, 0, 1): (0.0, 0.0588, 0.1412),
    (1, 0, 1, 0): (0.0, 0.651, 0.3137),
    (1, 0, 1, 1): (0.0, 0.0745, 0.0),
    (1, 1, 0, 0): (0.1804, 0.1922, 0.5725),
    (1, 1, 0, 1): (0.0, 0.0, 0.0078),
    (1, 1, 1, 0): (0.2118, 0.2119, 0.2235),
    (1, 1, 1, 1): (0.0, 0.0, 0.0),
}


def srgb(colour: Any) -> RGB:
    """The colour as WeasyPrint paints it (its pdf/stream.py): a lab or xyz colour as the grey
    of its lightness (all a contrast reads), any other space's first channels as sRGB, as
    WeasyPrint does with a space it does not know, and device CMYK as viewers show it
    (_device_cmyk)."""
    if colour.space in ("srgb", "hsl", "hwb"):
        channels = tuple(colour.to("srgb").coordinates)
    elif colour.space in _LAB_SPACES:
        lightness = colour.to("lab").coordinates[0]
        luminance = ((lightness + 16) / 116) ** 3 if lightness > 8 else lightness / 903.3
        grey = 12.92 * luminance if luminance <= 0.0031308 else 1.055 * luminance ** (1 / 2.4) - 0.055
        channels = (grey, grey, grey)
    elif colour.space == "device-cmyk":
        channels = _device_cmyk(*(channel or 0.0 for channel in colour.coordinates))
    else:
        channels = (*colour.coordinates, 0, 0)[:3]
    red, green, blue = (min(1.0, max(0.0, channel or 0.0)) for channel in channels)
    return red, green, blue


def _device_cmyk(*inks: float) -> RGB:
    """A device-cmyk colour as PDF viewers paint it. WeasyPrint writes it as DeviceCMYK, which
    names inks, not a colour on a screen: viewers paint it through a model of process inks on
    paper, never as 1 - ink, so a naive conversion (cyan as rgb(0 255 255)) would judge the
    contrast of colours no reader sees, and pass cyan text on the rgb(0 173 239) a viewer
    paints for it. The viewers' model here is poppler's (the PDF viewer of most Linux desktops,
    xpdf's, taken by MuPDF and close to Acrobat's default SWOP profile): each corner of the
    ink cube painted as _PROCESS_INKS says, blended in proportion to the inks between them."""
    red = green = blue = 0.0
    for corner, (r, g, b) in _PROCESS_INKS.items():
        weight = 1.0
        for ink, full in zip(inks, corner, strict=True):
            ink = min(1.0, max(0.0, ink))
            weight *= ink if full else 1 - ink
        red, green, blue = red + weight * r, green + weight * g, blue + weight * b
    return red, green, blue


def over(top: RGB, alpha: float, under: RGB) -> RGB:
    """`top` painted with `alpha` over `under`; rounded, so that a colour met twice is one."""
    red, green, blue = (round(alpha * t + (1 - alpha) * u, 4) for t, u in zip(top, under, strict=True))
    return red, green, blue


def contrast_ratio(first: RGB, second: RGB) -> float:
    """WCAG 2's contrast ratio of two colours: 1 (the same) to 21 (black and white)."""
    lighter, darker = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _luminance(colour: RGB) -> float:
    red, green, blue = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue
