"""Invoice numbers: one unbroken sequence per series, under concurrency and rollbacks. Eight
payments of one series at once, every third of them rolled back after taking its number: the
committed invoices hold 1..n with no gap and no number twice, and the next one continues the
run. A series per connected shop, its own from 1."""

from collections.abc import Callable
from functools import partial

import pytest
from django.db import connection, transaction

from orders.invoicing.issue import invoice_issue
from orders.invoicing.numbering import API_SERIES, number_take, series_of
from orders.models import Invoice, Order
from orders.selectors import order_content
from tests.at_once import at_once

pytestmark = pytest.mark.django_db(transaction=True)


class RolledBack(Exception):
    pass


def _issue(order: Order, *, roll_back: bool) -> str:
    try:
        with transaction.atomic():
            invoice_issue(order, content=order_content(order) or {}, version_number=1)
            if roll_back:
                raise RolledBack
    except RolledBack:
        return "rolled back"
    finally:
        connection.close()  # each thread's own connection
    return "issued"


def test_concurrent_issues_with_rollbacks_leave_no_gap_and_no_number_twice(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "off"  # issued by the test alone
    orders = [place_order(paid=False, number=f"N{n}") for n in range(8)]
    calls: list[Callable[[], str]] = [
        partial(_issue, order, roll_back=n % 3 == 2) for n, order in enumerate(orders)
    ]
    outcomes = at_once(calls)
    assert sorted(outcomes) == ["issued"] * 6 + ["rolled back"] * 2
    numbers = sorted(Invoice.objects.filter(series=API_SERIES).values_list("number", flat=True))
    assert numbers == list(range(1, 7)), numbers
    # the next one continues the run
    with transaction.atomic():
        assert number_take(API_SERIES) == 7


def test_each_shop_has_its_own_series_from_one(place_order, settings):
    from shops.models import Shop

    shop = Shop.objects.create(slug="tea", name="Tea", platform="shopify", domain="tea.myshopify.com")
    api_order = place_order(paid=True, number="A1")
    shop_order = place_order(paid=False, number="S1")
    Order.objects.filter(pk=shop_order.pk).update(shop=shop)
    shop_order.refresh_from_db()
    with transaction.atomic():
        invoice = invoice_issue(shop_order, content=order_content(shop_order) or {}, version_number=1)
    assert (invoice.series, invoice.number) == (series_of(shop_order), 1)
    assert Invoice.objects.get(order=api_order).number == 1
    assert invoice.series == f"shop-{shop.pk}"


def test_a_number_is_taken_only_inside_the_transaction_that_stores_its_document():
    with pytest.raises(RuntimeError, match="in the transaction that stores its document"):
        number_take(API_SERIES)
