"""A product without a SKU (each platform makes it optional): its line keeps the platform's line
id as its key, so its parcels and refunds still find it, and says so; its emails then show the
product's name alone, never "(item-<id>)"."""

import copy
import re
from typing import Any

import html5lib  # type: ignore[import-untyped]  # no stubs installed (types-html5lib is not a dependency)
import pytest

from intake.saleor.order import order_from_payload as saleor_order
from intake.shapes import PlatformOrder
from intake.shopify.order import order_from_payload as shopify_order
from intake.woocommerce.order import order_from_payload as woocommerce_order
from notifications.content.context import SAMPLE_CONTENT, email_context, sample_order
from notifications.content.render import RenderedEmail, email_render
from notifications.content.sources import shipped_source
from orders.content import SKU_IS_LINE_ID
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woocommerce


def _content(order: PlatformOrder) -> dict[str, Any]:
    assert order.content is not None, order.content_refused
    return order.content


def _without_sku(payload: dict, lines_key: str, index: int, sku_key: str) -> dict:
    changed = copy.deepcopy(payload)
    changed[lines_key][index][sku_key] = None
    return changed


READINGS = {
    "shopify": lambda: _content(shopify_order(_without_sku(shopify.ORDER, "line_items", 1, "sku"))),
    "woocommerce": lambda: _content(
        woocommerce_order(_without_sku(woocommerce.ORDER, "line_items", 1, "sku"))
    ),
    "saleor": lambda: _content(saleor_order(saleor.event("OrderCreated", saleor.ORDER))),
}


@pytest.mark.parametrize("platform", READINGS)
def test_a_line_without_a_sku_keeps_its_line_id_as_its_key_and_says_so(platform):
    # when a platform's order has a product without a SKU (the second line)
    given, without = READINGS[platform]()["lines"]
    # then its key is the platform's line id, marked as such; a real SKU is not
    assert without["sku"].startswith("item-")
    assert without[SKU_IS_LINE_ID] is True
    assert SKU_IS_LINE_ID not in given
    assert given["sku"] == "TEA-GREEN"


# A parcel's and a refund's lines are stored as the order's lines name them (sku, name,
# quantity): the order's content says which key is a line id.
TEAPOT = {"sku": "item-7c3d9e41", "name": "Teapot", "quantity": 1}
CONTENT = SAMPLE_CONTENT | {
    "lines": [
        SAMPLE_CONTENT["lines"][0],
        TEAPOT | {SKU_IS_LINE_ID: True, "unit_price": 1810, "total": 1810, "tax_rate": "0.19"},
    ]
}
ABOUT = {
    "order_confirmation": None,
    "order_shipment": {
        "shop_shipment_id": "1",
        "carrier": "DHL",
        "tracking_number": "",
        "tracking_url": "",
        "lines": [{"sku": "MUG-BLUE", "name": "Blue mug", "quantity": 2}, TEAPOT],
    },
    "order_refund": {
        "shop_refund_id": "R1",
        "amount_minor": 1810,
        "reason": "",
        "lines": [TEAPOT],
    },
}


def _email(kind: str, locale: str) -> RenderedEmail:
    order = sample_order(locale)
    context = email_context(order, locale, CONTENT, kind=kind, about=ABOUT[kind])
    return email_render(shipped_source(kind, locale), context)


def _visible_text(html: str) -> str:
    return "".join(html5lib.parse(html, namespaceHTMLElements=False).find("body").itertext())


@pytest.mark.parametrize("kind", ABOUT)
@pytest.mark.parametrize("locale", ["en", "ru"])
def test_the_emails_show_a_line_without_a_sku_by_its_name_alone(kind, locale):
    # when
    email = _email(kind, locale)
    # then the product is there, its key is not, and no empty brackets are left
    for part in (email.text, email.html):
        assert "Teapot" in part
        assert "item-7c3d9e41" not in part
        assert "()" not in part
    assert "1 × Teapot\n" in email.text  # noqa: RUF001
    assert not re.search(r'<span class="sku"[^>]*></span>', email.html)
    if kind != "order_refund":  # the refund is of the teapot alone
        assert "MUG-BLUE" in email.text
        assert "MUG-BLUE" in _visible_text(email.html)
