"""The platform mode's verdict per order, from the database with plain SQL: for each order the
shop sent, exactly one order of ours, with every parcel and refund it sent once, every piece of
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
       (SELECT count(*) FROM orders_shipment s WHERE s.order_id = o.id AND s.progress <> 'delivered')
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
    for outcome in ("waiting", "could_not_use"):
        if outcomes.get(outcome):
            verdict.problems.append(f"{outcomes[outcome]} deliveries left {outcome.replace('_', ' ')}")
    return verdict


def _order_problem(plan: PlatformPlan, found: list[tuple]) -> str:
    if len(found) != 1:
        return f"{len(found)} orders stored, expected 1"
    _, status, shipments, refunds, news, undelivered = found[0]
    wanted_status = "cancelled" if plan.cancelled else "paid"
    if status != wanted_status:
        return f"is {status}, expected {wanted_status}"
    if (shipments, refunds) != (plan.parcels, plan.refunds):
        return f"{shipments} parcels and {refunds} refunds stored, {plan.parcels} and {plan.refunds} sent"
    if news != plan.parcel_news:
        return f"{news} pieces of its parcels' news stored, {plan.parcel_news} sent"
    if undelivered:
        return f"{undelivered} of its parcels not delivered, though the news of each said so last"
    return ""
