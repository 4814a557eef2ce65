"""Where commit → sent goes, stage by stage, ours and naive at the same loads, from the rows'
own timestamps: the order's commit, the moment the worker took the email (ours: the claim's
attempt row; naive: the task's start), the provider call, `sent`.

The two pipelines' stages are the same three steps, so a difference in the total shows in the
step it comes from: the hand-over (publish, broker, prefetch, a pool process free), or the
worker's own work (reads, rendering, the provider call, the writes)."""

from django.db import connection

from orders.events import ORDER_CREATED

STAGES_ORDERS = 500
STAGES_RATES = (50, 100)
QUANTILES = (("p50", 0.5), ("p99", 0.99))
STAGES = ("to_claim", "claim_to_sent", "provider_call", "total")


def _cuts(expression: str) -> str:
    return ", ".join(
        f"percentile_cont({fraction}) WITHIN GROUP (ORDER BY {expression})" for _, fraction in QUANTILES
    )


def _by_stage(row: tuple, stages: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """The row's seconds, two cuts per stage in order, as ms by stage and quantile."""
    values = iter(row)
    return {stage: {name: next(values) * 1000 for name, _ in QUANTILES} for stage in stages}


def ours_stages_ms() -> dict[str, dict[str, float]]:
    """p50 and p99 of each step of commit → sent over the emails of the orders placed."""
    from messaging.models import OutboxEvent  # models once Django is set up: the report reads none
    from notifications.models import DeliveryAttempt, Notification

    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT {_cuts("extract(epoch FROM a.started_at - n.created_at)")},
                   {_cuts("extract(epoch FROM n.sent_at - a.started_at)")},
                   {_cuts("a.duration_ms / 1000.0")},
                   {_cuts("extract(epoch FROM n.sent_at - n.created_at)")},
                   {_cuts("extract(epoch FROM o.published_at - n.created_at)")}
              FROM {Notification._meta.db_table} n
              JOIN {DeliveryAttempt._meta.db_table} a ON a.notification_id = n.id AND a.outcome = 'accepted'
              JOIN {OutboxEvent._meta.db_table} o
                ON o.aggregate_id = n.order_id::text AND o.event_type = %s
            """,
            [ORDER_CREATED],
        )
        # off the email's path: the placer's wait for the broker's confirm and the mark
        return _by_stage(cursor.fetchone(), (*STAGES, "to_marked_published"))


def naive_stages_ms() -> dict[str, dict[str, float]]:
    """The same steps of the naive pipeline: its task writes when it began and how long the
    provider call took with `sent`, in the one UPDATE it always made."""
    from tools.bench.naive.models import NaiveOrder

    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT {_cuts("extract(epoch FROM started_at - created_at)")},
                   {_cuts("extract(epoch FROM sent_at - started_at)")},
                   {_cuts("provider_ms / 1000.0")},
                   {_cuts("extract(epoch FROM sent_at - created_at)")}
              FROM {NaiveOrder._meta.db_table} WHERE sent_at IS NOT NULL
            """
        )
        return _by_stage(cursor.fetchone(), STAGES)


STAGE_LABELS = (
    (
        "to_claim",
        "order commit → the worker takes it: publish, broker, prefetch, a pool process free"
        " (ours: and the claim's locked read)",
    ),
    ("claim_to_sent", "taken → sent: reads, rendering, the provider call, the writes"),
    ("provider_call", "of which the provider call"),
    ("total", "total commit → sent"),
    ("to_marked_published", "(ours, off the email's path) commit → event marked published"),
)


def stages_lines(stages: dict | None) -> list[str]:
    """The stages of both pipelines at each load, p50 and p99 (a stage's quantiles need not
    add up to the total's)."""
    if not stages or "rates" not in stages:
        return []
    lines = [""]
    for rate, by_pipeline in stages["rates"].items():
        ours, naive = by_pipeline["ours"], by_pipeline["naive"]
        lines += [
            f"| where the time goes at {rate} orders/s, {stages['orders']} orders, ms "
            "| ours p50 | naive p50 | ours p99 | naive p99 |",
            "|---|---:|---:|---:|---:|",
        ]
        for key, label in STAGE_LABELS:
            cells = [
                "-" if key not in figures else f"{figures[key][quantile]:.1f}"
                for quantile in ("p50", "p99")
                for figures in (ours, naive)
            ]
            lines.append(f"| {label} | {' | '.join(cells)} |")
        lines.append("")
    return lines[:-1]
