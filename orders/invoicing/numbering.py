"""An unbroken sequence of numbers per series (a connected shop, or the API's orders).

PostgreSQL's sequences skip a number on every rolled-back transaction, which an invoice's
numbering may not. So the next number is a counter row (InvoiceSequence), incremented by an
UPDATE in the very transaction that inserts the document: the row stays locked until that
transaction ends, so two issuers of one series take turns (the second reads the first's
increment once it commits), and a rollback takes back the increment together with the
document. A number, once committed, is never given again (and the unique constraint on
(series, number) refuses it if anything tried), also once the retention job deleted its
document (retention.py): the counter never goes back, and the DeletedInvoice left in its place
holds the number, unique per series as well."""

from django.db import connection

from orders.models import InvoiceSequence, Order

API_SERIES = "api"  # the orders placed with no API token (the product's own tools)

_TAKE = f"""
INSERT INTO {InvoiceSequence._meta.db_table} AS s (series, next_number) VALUES (%s, 2)
ON CONFLICT (series) DO UPDATE SET next_number = s.next_number + 1
RETURNING next_number - 1
"""


def series_of(order: Order) -> str:
    """A connected shop's series; an API client's own (clients are separate sellers: one's
    numbers say nothing of another's sales); API_SERIES for an order placed with no token."""
    if order.shop_id is not None:
        return f"shop-{order.shop_id}"
    if order.api_token is not None:
        return f"client-{order.api_token.client}"  # a client's successive tokens share it
    return API_SERIES


def number_take(series: str) -> int:
    """The series' next number, in the caller's transaction (which must store the document)."""
    if not connection.in_atomic_block:  # autocommit would commit the number without its document
        raise RuntimeError("a number is taken in the transaction that stores its document")
    with connection.cursor() as cursor:
        cursor.execute(_TAKE, [series])
        (number,) = cursor.fetchone()
    return int(number)
