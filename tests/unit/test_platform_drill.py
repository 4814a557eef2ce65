"""The drill's platform mode, its parts that need no stack: the verdict per order (what the shop
sent against what is stored) and the report's rows for it."""

from dataclasses import asdict

from tests.drill_reports import drill_report
from tools.drill.platform_load import PlatformLoad, PlatformPlan
from tools.drill.platform_verdict import PlatformVerdict, _order_problem
from tools.drill.report import report_markdown

TEA = [{"sku": "TEA", "quantity": 1}]


def test_an_order_is_right_only_once_and_as_the_shop_sent_it():
    # (our id, status, parcels, refunds, pieces of parcel news, parcels not delivered, the lines
    # of its latest version, edits stored)
    shipped = PlatformPlan(email="a@drill.example", lines={"TEA": 1}, parcels=2, refunds=1, parcel_news=5)
    cancelled = PlatformPlan(email="b@drill.example", lines={"TEA": 1}, cancelled=True)
    assert _order_problem(shipped, [("id-1", "paid", 2, 1, 5, 0, TEA, 0)]) == ""
    assert _order_problem(cancelled, [("id-2", "cancelled", 0, 0, 0, 0, TEA, 0)]) == ""
    assert _order_problem(shipped, []) == "0 orders stored, expected 1"
    assert _order_problem(
        shipped, [("id-1", "paid", 2, 1, 5, 0, TEA, 0), ("id-3", "paid", 2, 1, 5, 0, TEA, 0)]
    ) == ("2 orders stored, expected 1")
    assert _order_problem(cancelled, [("id-2", "paid", 0, 0, 0, 0, TEA, 0)]) == "is paid, expected cancelled"
    assert _order_problem(shipped, [("id-1", "paid", 1, 1, 5, 0, TEA, 0)]) == (
        "1 parcels and 1 refunds stored, 2 and 1 sent"
    )
    # each piece of its parcels' news once, and every parcel delivered at the end
    assert (
        _order_problem(shipped, [("id-1", "paid", 2, 1, 4, 0, TEA, 0)])
        == "4 pieces of its parcels' news stored, 5 sent"
    )
    assert _order_problem(shipped, [("id-1", "paid", 2, 1, 5, 1, TEA, 0)]) == (
        "1 of its parcels not delivered, though the news of each said so last"
    )
    # the lines of the shop's last word, its edit applied at most once
    edited = PlatformPlan(email="c@drill.example", lines={"TEA": 1, "MUG": 1}, edited=True)
    both = [{"sku": "TEA", "quantity": 1}, {"sku": "MUG", "quantity": 1}]
    assert _order_problem(edited, [("id-4", "paid", 0, 0, 0, 0, both, 1)]) == ""
    assert _order_problem(edited, [("id-4", "paid", 0, 0, 0, 0, both, 0)]) == ""  # created as edited
    assert _order_problem(edited, [("id-4", "paid", 0, 0, 0, 0, TEA, 1)]) == (
        "holds {'TEA': 1}, the shop's last word was {'TEA': 1, 'MUG': 1}"
    )
    assert (
        _order_problem(edited, [("id-4", "paid", 0, 0, 0, 0, both, 2)]) == "2 edits stored, the shop made 1"
    )


def test_a_delivery_left_waiting_or_unusable_fails_the_verdict():
    assert PlatformVerdict(deliveries_by_outcome={"used": 9, "stale": 1}).passed
    assert not PlatformVerdict(deliveries_by_outcome={"used": 9, "waiting": 1}).passed
    assert not PlatformVerdict(deliveries_by_outcome={"could_not_use": 1}).passed
    assert not PlatformVerdict(orders_wrong=1).passed


def test_the_report_says_how_the_orders_came_in_and_what_the_intake_answered():
    load = PlatformLoad(orders_asked=2, deliveries=5, copies=13)
    load.accepted = {"7200000000": "a@drill.example", "7200000001": "b@drill.example"}
    load.answers = {"used": 5, "duplicate": 7, "waiting": 1}
    platform = asdict(PlatformVerdict(orders_sent=2, orders_stored=2, deliveries_by_outcome={"used": 5}))
    verdict = {"orders": 2, "emails_expected": 3, "emails_accepted": 3}
    report = drill_report(load=load, verdict=verdict, platform=platform)
    markdown = report_markdown(report)
    assert "| orders placed (every delivery of the order answered 200) | 2 |" in markdown
    assert "| Shopify deliveries: events / posts (2 to 4 copies each, spread, out of order) | 5 / 13 |" in (
        markdown
    )
    assert "| their answers | duplicate 7, used 5, waiting 1 |" in markdown
    assert "| shop orders sent / stored / not as sent | 2 / 2 / 0 |" in markdown
    assert "orders placed (201 from the API)" not in markdown
    assert "API throttle per token" not in markdown  # no token: the webhooks are signed instead
