"""Orders with content placed paid (as a shop platform announces them) and a PDF read back as
text with poppler's pdftotext, as a person or an accountant's software would read it."""

import copy
import subprocess
from typing import Any

import pytest
from django.db import transaction

from notifications.content.samples import SAMPLE_CONTENT
from orders.content import ShopOrder
from orders.models import Order
from orders.services import order_record


def pdf_text(pdf: bytes) -> str:
    """The PDF's text in reading order (pdftotext -layout)."""
    assert pdf.startswith(b"%PDF-"), pdf[:20]
    done = subprocess.run(
        ["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True, timeout=60
    )
    return done.stdout.decode()


def content_sample(**changes: Any) -> dict[str, Any]:
    content = copy.deepcopy(SAMPLE_CONTENT) | changes
    return content


@pytest.fixture
def place_order():
    def place(*, paid: bool = True, locale: str = "en", number: str = "1001", **changes: Any) -> Order:
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
            )

    return place
