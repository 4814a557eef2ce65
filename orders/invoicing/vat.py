"""Each line's VAT and the totals per rate, from an order's content, in minor units.

Prices include their taxes (orders/content.py), each line with its rate. Shipping and the
discounts carry no rate of their own: they are shared among the rates in proportion to the
lines' amounts at each rate (the usual treatment of an ancillary cost or a discount on a
mixed basket), with the remainders placed so every share is a whole minor unit and the
shares add up exactly. For each rate the net is its gross divided by (1 + rate), rounded
half up; the VAT is the gross less the net. So the rates' gross amounts add up to the
order's total to the unit, whatever the rounding."""

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from orders.content import SKU_IS_LINE_ID


def net_of(gross: int, rate: Decimal) -> int:
    return int((Decimal(gross) / (1 + rate)).to_integral_value(rounding=ROUND_HALF_UP))


def shares(amount: int, weights: dict[str, int]) -> dict[str, int]:
    """`amount` split in proportion to `weights` (VAT rates as text: their lines' amounts), in
    whole units adding up to it (largest remainders first; ties by key, so the split is the
    same on every run)."""
    whole = sum(weights.values())
    if not whole:
        # free lines alone (a sample with paid delivery): the whole amount on the highest rate,
        # so it is still invoiced (the lines' rates are all there is to go by)
        split = dict.fromkeys(weights, 0)
        if weights:
            split[max(weights, key=Decimal)] = amount
        return split
    exact = {key: Decimal(amount) * weight / whole for key, weight in weights.items()}
    split = {key: int(value) for key, value in exact.items()}  # toward zero
    left = amount - sum(split.values())
    step = 1 if left >= 0 else -1
    for key in sorted(exact, key=lambda k: (-abs(exact[k] - split[k]), k))[: abs(left)]:
        split[key] += step
    return split


def vat_lines(content: dict[str, Any]) -> list[dict[str, Any]]:
    """The content's lines, each with its rate as text, its net and its VAT."""
    lines = []
    for line in content["lines"]:
        rate = Decimal(str(line.get("tax_rate") or "0"))
        net = net_of(line["total"], rate)
        lines.append(
            {
                "sku": line["sku"],
                "name": line["name"],
                "quantity": line["quantity"],
                "unit_price": line["unit_price"],
                "unit_net": net_of(line["unit_price"], rate),  # art. 226(8): excl. VAT
                "total": line["total"],
                "tax_rate": format(rate.normalize(), "f"),
                "net": net,
                "vat": line["total"] - net,
                "sku_is_line_id": bool(line.get(SKU_IS_LINE_ID)),  # no SKU a customer could quote
            }
        )
    return lines


def vat_rates(content: dict[str, Any], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per rate, highest first: the gross (its lines, plus its share of shipping, less its share
    of the discounts), the net and the VAT."""
    by_rate: dict[str, int] = {}
    for line in lines:
        by_rate[line["tax_rate"]] = by_rate.get(line["tax_rate"], 0) + line["total"]
    shipping = content["shipping"]["price"] if content.get("shipping") else 0
    discounts = sum(discount["amount"] for discount in content.get("discounts", []))
    shipping_shares, discount_shares = shares(shipping, by_rate), shares(discounts, by_rate)
    rates = []
    for rate in sorted(by_rate, key=Decimal, reverse=True):
        gross = by_rate[rate] + shipping_shares[rate] - discount_shares[rate]
        net = net_of(gross, Decimal(rate))
        rates.append(
            {
                "rate": rate,
                "gross": gross,
                "net": net,
                "vat": gross - net,
                "shipping": shipping_shares[rate],
                "discounts": discount_shares[rate],
            }
        )
    return rates


def negated(rates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same rows with every amount's sign turned (a credit note's)."""
    return [{key: -value if isinstance(value, int) else value for key, value in row.items()} for row in rates]


def vat_as_charged(rates: list[dict[str, Any]], tax_total: int | None) -> list[dict[str, Any]]:
    """The rates' VAT as the shop charged it: its `tax_total` (its tax engine is the authority:
    it may round per line, or leave shipping untaxed) shared among the rates in proportion to
    the VAT worked out for each, each rate's net its gross less that. Unchanged when the shop
    sent no total, when it agrees, or when no rate carries any VAT to weigh by."""
    weights = {row["rate"]: row["vat"] for row in rates}
    if tax_total is None or tax_total == sum(weights.values()) or not any(weights.values()):
        return rates
    charged = shares(tax_total, weights)
    return [row | {"vat": charged[row["rate"]], "net": row["gross"] - charged[row["rate"]]} for row in rates]


def credited_rates(invoiced: list[dict[str, Any]], amount: int) -> list[dict[str, Any]]:
    """A credit of `amount` against an invoice's rates: shared in proportion to their gross
    amounts, each rate's VAT the invoice's own in proportion (all of it for a full reversal),
    so a credit note never states another VAT than its invoice did."""
    by_rate = {row["rate"]: row for row in invoiced}
    credited = shares(amount, {rate: row["gross"] for rate, row in by_rate.items()})
    rates = []
    for rate, gross in credited.items():
        if gross:
            share = Decimal(by_rate[rate]["vat"]) * gross / by_rate[rate]["gross"]
            vat = int(share.to_integral_value(rounding=ROUND_HALF_UP))
            rates.append({"rate": rate, "gross": gross, "net": gross - vat, "vat": vat})
    return rates
