"""The keeping period of an invoice or a credit note, counted as national rules count it
(Germany's § 147 AO): RETENTION_YEARS from the end of the calendar year of issue, in the
deployment's time zone, the one its printed date of issue is in. With ten years, a document
issued in 2016 may go from 1 January 2027 on, not a moment before."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from orders.invoicing.retention import documents_kept_since
from orders.models.invoices import RETENTION_YEARS

BERLIN = ZoneInfo("Europe/Berlin")
ISSUED = 2016
FREED = ISSUED + RETENTION_YEARS + 1  # 2027: its first year with the period over


def _may_go(issued_at: datetime, *, now: datetime) -> bool:
    return issued_at < documents_kept_since(now)


@pytest.mark.parametrize(
    ("issued_at", "now", "goes"),
    [
        (datetime(ISSUED, 6, 1, tzinfo=UTC), datetime(FREED - 1, 12, 31, 23, 59, 59, tzinfo=UTC), False),
        (datetime(ISSUED, 6, 1, tzinfo=UTC), datetime(FREED, 1, 1, tzinfo=UTC), True),
        (datetime(ISSUED, 1, 1, tzinfo=UTC), datetime(FREED - 1, 12, 31, 23, 59, 59, tzinfo=UTC), False),
        (datetime(ISSUED, 12, 31, 23, 59, 59, tzinfo=UTC), datetime(FREED, 1, 1, tzinfo=UTC), True),
        (datetime(ISSUED + 1, 1, 1, tzinfo=UTC), datetime(FREED, 12, 31, 23, 59, 59, tzinfo=UTC), False),
        (datetime(ISSUED - 1, 1, 1, tzinfo=UTC), datetime(FREED - 1, 1, 1, tzinfo=UTC), True),
    ],
)
def test_a_document_goes_on_1_january_once_its_years_after_the_year_of_issue_are_over(issued_at, now, goes):
    assert _may_go(issued_at, now=now) is goes


def test_the_year_is_the_deployment_s_as_the_printed_date_is(settings):
    settings.TIME_ZONE = "Europe/Berlin"
    # 23:30 UTC on 31 December is already the next year in Berlin: a document of that year there
    issued_at = datetime(ISSUED, 12, 31, 23, 30, tzinfo=UTC)
    assert not _may_go(issued_at, now=datetime(FREED, 1, 1, 0, 30, tzinfo=BERLIN))
    assert _may_go(issued_at, now=datetime(FREED + 1, 1, 1, 0, 0, tzinfo=BERLIN))
    # and the new year starts at Berlin's midnight, an hour before UTC's
    december = datetime(ISSUED, 12, 31, 12, 0, tzinfo=BERLIN)
    assert _may_go(december, now=datetime(FREED - 1, 12, 31, 23, 30, tzinfo=UTC))  # 00:30 on 1 January there
