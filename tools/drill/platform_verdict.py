"""The platform mode's verdict per order, from the database with plain SQL: for each order the
shop sent, exactly one order of ours, holding the lines of the shop's last word (after its edit,
if it had one, applied at most once), with every parcel and refund it sent once, every piece of
its parcels' news once (each parcel delivered at the end, whatever order the news came in), and
cancelled if it was cancelled; no delivery left waiting for its order or unusable. The emails of those orders
are judged as every drill's (verdict.py)."""

from dataclasses import dataclass, field

import psycopg

from tools.drill.platform_load import SHOP, PlatformPlan

_ORDERS = """
SELECT o.platform_order_id, o.id::text, o.status,
       (SELECT count(*) FROM orders_shipment s WHERE s.order_id = o.id),
       (SELECT count(*) FROM orders_refund r WHERE r.order_id = o.id),
       (SELECT count(*) FROM orders_shipmentevent e JOIN orders_shipment s ON s.id = e.shipment_id
         WHERE s.order_id = o.id),
       (SELECT count(*) FROM orders_shipment s WHERE s.order_id = o.id AND s.progress <> 'delivered'),
       (SELECT v.content->'lines' FROM orders_orderversion v
         WHERE v.order_id = o.id AND v.number = coalesce(o.content_version, 1)),
       (SELECT count(*) FROM orders_orderedit e WHERE e.order_id = o.id)
  FROM orders_order o JOIN shops_shop sh ON sh.id = o.shop_id
 WHERE sh.slug = %s
"""
_DELIVERIES = """
SELECT d.outcome, count(*) FROM intake_platformdelivery d JOIN shops_shop sh ON sh.id = d.shop_id
 WHERE sh.slug = %s GROUP BY d.outcome
"""


@dataclass
class PlatformVerdict:
    orders_sent: int = 0
    orders_stored: int = 0
    orders_wrong: int = 0  # missing, twice, or not as the shop sent it
    # Of the orders the shop edited: those we stored and then edited (a "your order was changed"
    # email each), and those whose edit arrived first, created as edited (no edit to tell of).
    edits_applied: int = 0
    created_as_edited: int = 0
    deliveries_by_outcome: dict[str, int] = field(default_factory=dict)
    our_order_ids: dict[str, str] = field(default_factory=dict)  # platform order id -> ours
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        left = [self.deliveries_by_outcome.get(outcome, 0) for outcome in ("waiting", "could_not_use")]
        return not self.orders_wrong and not any(left)


def platform_verdict(database_dsn: str, plans: dict[str, PlatformPlan]) -> PlatformVerdict:
    with psycopg.connect(database_dsn) as connection:
        rows = connection.execute(_ORDERS, [SHOP["slug"]]).fetchall()
        outcomes: dict[str, int] = dict(connection.execute(_DELIVERIES, [SHOP["slug"]]).fetchall())
    verdict = PlatformVerdict(orders_sent=len(plans), orders_stored=len(rows), deliveries_by_outcome=outcomes)
    stored: dict[str, list[tuple]] = {}
    for platform_id, our_id, *found in rows:
        stored.setdefault(platform_id, []).append((our_id, *found))
    for platform_id, plan in plans.items():
        found = stored.get(platform_id, [])
        problem = _order_problem(plan, found)
        if problem:
            verdict.orders_wrong += 1
            verdict.problems.append(f"Shopify order {platform_id}: {problem}")
        elif found:
            verdict.our_order_ids[platform_id] = found[0][0]
            if plan.edited:
                edits = found[0][-1]
                verdict.edits_applied += edits
                verdict.created_as_edited += edits == 0
    for outcome in ("waiting", "could_not_use"):
        if outcomes.get(outcome):
            verdict.problems.append(f"{outcomes[outcome]} deliveries left {outcome.replace('_', ' ')}")
    return verdict


def _order_problem(plan: PlatformPlan, found: list[tuple]) -> str:
    if len(found) != 1:
        return f"{len(found)} orders stored, expected 1"
    _, status, shipments, refunds, news, undelivered, lines, edits = found[0]
    wanted_status = "cancelled" if plan.cancelled else "paid"
    if status != wanted_status:
        return f"is {status}, expected {wanted_status}"
    if (shipments, refunds) != (plan.parcels, plan.refunds):
        return f"{shipments} parcels and {refunds} refunds stored, {plan.parcels} and {plan.refunds} sent"
    if news != plan.parcel_news:
        return f"{news} pieces of its parcels' news stored, {plan.parcel_news} sent"
    if undelivered:
        return f"{undelivered} of its parcels not delivered, though the news of each said so last"
    held: dict[str, int] = {}
    for line in lines or []:
        held[line["sku"]] = held.get(line["sku"], 0) + line["quantity"]
    if held != plan.lines:
        return f"holds {held}, the shop's last word was {plan.lines}"
    if edits > int(plan.edited):
        return f"{edits} edits stored, the shop made {int(plan.edited)}"
    return ""
