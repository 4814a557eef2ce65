"""The invoices' arithmetic on made-up content, in minor units: shares that add up exactly, the
rates' gross amounts adding up to the order's total whatever the rounding, the VAT as the shop
charged it when it says so; and the email kinds orders/invoicing names being the notifications'."""

from notifications.models import Notification
from orders.invoicing import issue
from orders.invoicing.vat import shares, vat_as_charged, vat_lines, vat_rates


def _content(lines, *, shipping=0, discounts=0, tax_total=None):
    content = {
        "lines": [
            {"sku": sku, "name": sku, "quantity": 1, "unit_price": total, "total": total, "tax_rate": rate}
            for sku, total, rate in lines
        ],
        "discounts": [{"amount": discounts}] if discounts else [],
        "total": sum(total for _, total, _ in lines) + shipping - discounts,
    }
    if shipping:
        content["shipping"] = {"method": "post", "price": shipping}
    if tax_total is not None:
        content["tax_total"] = tax_total
    return content


def test_shares_add_up_to_the_amount_and_follow_the_weights():
    # equal weights: the one unit left goes by key, the same on every run
    assert shares(100, {"0.19": 1, "0.07": 1, "0": 1}) == {"0.19": 33, "0.07": 33, "0": 34}
    split = shares(1001, {"0.19": 2980, "0.07": 1810})
    assert sum(split.values()) == 1001
    assert split["0.19"] > split["0.07"]
    assert shares(-490, {"0.19": 3, "0.07": 1}) == {"0.19": -367, "0.07": -123}


def test_a_split_over_rates_that_weigh_nothing_goes_to_the_highest_rate():
    assert shares(490, {"0.07": 0, "0.19": 0}) == {"0.07": 0, "0.19": 490}
    assert shares(490, {}) == {}


def test_the_rates_gross_amounts_add_up_to_the_total_with_shipping_and_a_discount():
    content = _content(
        [("A", 2980, "0.19"), ("B", 1810, "0.07"), ("C", 333, "0")], shipping=490, discounts=290
    )
    rates = vat_rates(content, vat_lines(content))
    assert sum(row["gross"] for row in rates) == content["total"]
    assert [row["rate"] for row in rates] == ["0.19", "0.07", "0"]  # highest first
    for row in rates:
        assert row["net"] + row["vat"] == row["gross"]
    assert next(row for row in rates if row["rate"] == "0")["vat"] == 0


def test_free_lines_with_paid_shipping_bill_the_shipping_at_the_highest_rate():
    content = _content([("FREE", 0, "0.07"), ("ALSO", 0, "0.19")], shipping=490)
    rates = {row["rate"]: row for row in vat_rates(content, vat_lines(content))}
    assert rates["0.19"]["gross"] == 490
    assert rates["0.19"]["vat"] == 78  # 490 - round(490 / 1.19)


def test_the_vat_is_the_shops_when_it_says_what_it_charged():
    content = _content([("A", 2980, "0.19"), ("B", 1810, "0.07")], shipping=490, discounts=290, tax_total=594)
    worked_out = vat_rates(content, vat_lines(content))
    charged = vat_as_charged(worked_out, 594)
    assert sum(row["vat"] for row in charged) == 594
    assert sum(row["gross"] for row in charged) == content["total"]
    for row in charged:
        assert row["net"] == row["gross"] - row["vat"]
    # unchanged without the shop's figure, or when it agrees
    assert vat_as_charged(worked_out, None) == worked_out
    assert vat_as_charged(worked_out, sum(row["vat"] for row in worked_out)) == worked_out


def test_the_email_kinds_the_invoices_name_are_the_notifications_kinds():
    kinds = {
        issue.CONFIRMATION_EMAIL,
        issue.REFUND_EMAIL,
        issue.CANCELLATION_EMAIL,
        issue.EDIT_EMAIL,
        issue.INVOICE_EMAIL,
    }
    assert kinds <= set(Notification.Kind.values)
