"""Orders with content placed paid (as a shop platform announces them) and a PDF read back as
text with poppler's pdftotext, as a person or an accountant's software would read it."""

import copy
from typing import Any

import pytest
from django.db import transaction

from notifications.content.samples import SAMPLE_CONTENT
from orders.content import ShopOrder
from orders.models import Order
from orders.services import order_record
from tests.pdf_files import pdf_text

__all__ = ["pdf_text"]  # the invoices' tests read their PDFs with it


def content_sample(**changes: Any) -> dict[str, Any]:
    content = copy.deepcopy(SAMPLE_CONTENT) | changes
    return content


@pytest.fixture
def place_order():
    def place(
        *,
        paid: bool = True,
        paid_minor: int | None = None,
        locale: str = "en",
        number: str = "1001",
        **changes: Any,
    ) -> Order:
        """`paid_minor`: what its payment took, when less than its total (paid in part)."""
        content = content_sample(number=number, **changes)
        shop_order = ShopOrder(content)
        with transaction.atomic():
            return order_record(
                customer_email=content["customer_email"],
                amount=shop_order.amount,
                currency=content["currency"],
                locale=locale,
                shop_order=shop_order,
                paid=paid,
                paid_minor=paid_minor,
            )

    return place
