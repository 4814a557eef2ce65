"""docs/platforms.md says when a Shopify shop/redact is carried out: its figures are the code's
(intake/shopify/shop_redact.py)."""

from pathlib import Path

from intake.shopify.shop_redact import RETRIED_FOR, SENT_AFTER_UNINSTALL, SHOP_REDACT_QUIET, hours

DOC = Path(__file__).resolve().parents[2] / "docs" / "platforms.md"


def test_the_quiet_time_and_the_figures_it_comes_from_are_the_code_s():
    text = " ".join(DOC.read_text().split())  # as one line: the doc wraps its sentences
    assert f"Shopify sends it {hours(SENT_AFTER_UNINSTALL)} after the app was uninstalled" in text
    assert f"made before for up to {hours(RETRIED_FOR)}" in text
    assert f"`SHOP_REDACT_QUIET` ({hours(SHOP_REDACT_QUIET)}," in text
