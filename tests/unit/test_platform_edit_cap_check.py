"""A cap of the platforms' edits per order below 1, which would leave out every change a shop
makes on its platform, is refused at start-up with what to write instead."""

import pytest
from django.test import override_settings

from intake.checks import platform_edit_cap_check


def test_the_default_passes():
    assert platform_edit_cap_check(None) == []


@pytest.mark.parametrize("cap", [0, -5])
def test_a_cap_below_one_is_refused(cap):
    with override_settings(PLATFORM_EDITS_PER_ORDER_MAX=cap):
        [error] = platform_edit_cap_check(None)
    assert error.id == "intake.E001"
    assert "at least 1" in error.msg
