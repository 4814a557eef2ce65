"""Colours as WeasyPrint paints them into a PDF, and how far one stands out from another (WCAG
2's contrast ratio): what page_text.py asks of a text's colour against its background. Plain
arithmetic on tinycss2's colours, which WeasyPrint's computed styles hold."""

from typing import Any

RGB = tuple[float, float, float]  # red, green and blue of sRGB, 0 to 1
WHITE: RGB = (1.0, 1.0, 1.0)
_LAB_SPACES = frozenset({"lab", "lch", "oklab", "oklch", "xyz-d50", "xyz-d65"})


def srgb(colour: Any) -> RGB:
    """The colour as WeasyPrint paints it (its pdf/stream.py): a lab or xyz colour as the grey
    of its lightness (all a contrast reads), device CMYK naively, any other space's first
    channels as sRGB, as WeasyPrint does with a space it does not know."""
    if colour.space in ("srgb", "hsl", "hwb"):
        channels = tuple(colour.to("srgb").coordinates)
    elif colour.space in _LAB_SPACES:
        lightness = colour.to("lab").coordinates[0]
        luminance = ((lightness + 16) / 116) ** 3 if lightness > 8 else lightness / 903.3
        grey = 12.92 * luminance if luminance <= 0.0031308 else 1.055 * luminance ** (1 / 2.4) - 0.055
        channels = (grey, grey, grey)
    elif colour.space == "device-cmyk":
        cyan, magenta, yellow, black = (channel or 0 for channel in colour.coordinates)
        channels = ((1 - cyan) * (1 - black), (1 - magenta) * (1 - black), (1 - yellow) * (1 - black))
    else:
        channels = (*colour.coordinates, 0, 0)[:3]
    red, green, blue = (min(1.0, max(0.0, channel or 0.0)) for channel in channels)
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
