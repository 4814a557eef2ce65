"""The drill's verdict on a parcel's news emails (tools/drill/verdict.py): which may end
skipped without failing the run, as the delivery rules skip them (notifications/delivery/
rules.py); "in transit" only shows up on a stack with PARCEL_IN_TRANSIT_EMAIL on."""

import pytest

from tools.drill.verdict import _may_be_skipped

PARCEL, ORDER = "p1", "o1"
SHIPPED = {(PARCEL, "order_shipment"): ("sent", "k0", "")}


def _may_skip(kind: str, *, emails: dict, delivered: bool = False) -> bool:
    return _may_be_skipped(kind, PARCEL, ORDER, {ORDER: "created"}, emails, {PARCEL} if delivered else set())


@pytest.mark.parametrize("later", ["parcel_out_for_delivery", "parcel_delivery_failed", "parcel_delivered"])
def test_in_transit_may_be_skipped_once_a_later_step_has_its_email(later):
    emails = SHIPPED | {
        (PARCEL, "parcel_in_transit"): ("skipped", "k1", ""),
        (PARCEL, later): ("sent", "k2", ""),
    }
    assert _may_skip("parcel_in_transit", emails=emails)
    # the later step's own email is not excused by it
    assert not _may_skip("parcel_out_for_delivery", emails=emails)


def test_in_transit_may_be_skipped_once_the_parcel_was_delivered_and_not_otherwise():
    emails = SHIPPED | {(PARCEL, "parcel_in_transit"): ("skipped", "k1", "")}
    assert _may_skip("parcel_in_transit", emails=emails, delivered=True)
    assert not _may_skip("parcel_in_transit", emails=emails)
