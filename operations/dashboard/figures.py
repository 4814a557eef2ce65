"""The operator dashboard's figures: today's accepted vs completed emails, the oldest unfinished one,
the dead-letter queues, and a picture of commit → sent latency over the last hour."""

import math
from datetime import datetime, timedelta
from statistics import quantiles
from typing import Any, TypedDict

from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.timesince import timesince

from messaging.retention import retention_last_run
from notifications.models import Notification
from notifications.selectors import (
    notification_counts_per_kind_since,
    notification_latencies_sent_since,
    notification_oldest_unfinished_since,
)
from notifications.sending_now import SendingNow, sending_now
from operations.dead_letters.reader import dead_letter_queue_depths

WIDTH, HEIGHT, MARGIN = 760, 260, 46
SMALL_CENTRED = 'font-size="10" text-anchor="middle"'
LOW, HIGH = 0.001, 600.0  # the plot's latency range: 1 ms to 10 min, on a log scale
LATENCY_WINDOW = timedelta(hours=1)  # the emails sent this recently are the picture's points


class LatencySummary(TypedDict):
    count: int
    p50_ms: int
    p95_ms: int


class DashboardFigures(TypedDict):
    title: str
    per_kind: list[dict[str, Any]]
    oldest_unfinished_seconds: int | None
    dead_letters: dict[str, int | str]  # depth per queue, or {"broker unreachable": why}
    latency_svg: str
    latency_summary: LatencySummary | None
    provider: str  # which provider sends now and since when, its circuit breaker, in words
    provider_state: str  # the first's circuit (closed, open, half open, paused), "fallback" or "none"
    oldest_unfinished_words: str  # "3 minutes"
    dead_letters_total: int
    retention_ran_words: str  # "12 minutes" ago, or "" if it never ran
    retention_late: bool  # never ran, or not in the last two hours (it runs hourly)
    retention_removed: dict[str, int]  # its last run's rows removed or cleared, by what (non-zero)


def dashboard_figures() -> DashboardFigures:
    now = timezone.now()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    oldest = notification_oldest_unfinished_since()
    dead_letters: dict[str, int | str]
    try:
        dead_letters = dict(dead_letter_queue_depths())
    except Exception as exc:
        dead_letters = {"broker unreachable": str(exc)}
    points = [
        ((now - sent_at).total_seconds() / 60, (sent_at - created_at).total_seconds())
        for created_at, sent_at in notification_latencies_sent_since(now - LATENCY_WINDOW)
    ]
    sending = sending_now()
    return {
        "title": "Notifications dashboard",
        "per_kind": [_labelled(row) for row in notification_counts_per_kind_since(today)],
        "oldest_unfinished_seconds": round((now - oldest).total_seconds()) if oldest else None,
        "oldest_unfinished_words": timesince(oldest, now, depth=1) if oldest else "",
        "dead_letters": dead_letters,
        "dead_letters_total": sum(depth for depth in dead_letters.values() if isinstance(depth, int)),
        "latency_svg": latency_svg(points),
        "latency_summary": _summary([latency for _, latency in points]),
        "provider": sending.describe(),
        "provider_state": _provider_state(sending),
        **_retention(now),
    }


class RetentionFigures(TypedDict):
    retention_ran_words: str
    retention_late: bool
    retention_removed: dict[str, int]


def _retention(now: datetime) -> RetentionFigures:
    """When the retention job (messaging/retention.py) last ran and what it removed."""
    run = retention_last_run()
    if run is None:
        return {"retention_ran_words": "", "retention_late": True, "retention_removed": {}}
    removed = {
        name.removesuffix("_deleted").replace("_", " "): count for name, count in run.removed.items() if count
    }
    return {
        "retention_ran_words": timesince(run.finished_at, now, depth=1),
        "retention_late": now - run.finished_at > timedelta(hours=2),
        "retention_removed": removed,
    }


def _labelled(row: dict[str, Any]) -> dict[str, Any]:
    """A kind's figures with its name in words and how many wait for a person."""
    return {**row, "label": Notification.Kind(row["kind"]).label}


def latency_svg(points: list[tuple[float, float]]) -> str:
    """A scatter plot: minutes ago (x) against commit → sent seconds (y, log scale)."""
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="commit to sent latency, last hour">',
        f'<text x="{WIDTH / 2}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">'
        "sent, minutes ago</text>",
        f'<text transform="rotate(-90)" x="{-HEIGHT / 2}" y="12" font-size="11" text-anchor="middle">'
        "commit → sent (log scale)</text>",
    ]
    parts.append(
        f'<rect x="{MARGIN}" y="{MARGIN}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#ccc"/>'
    )
    for seconds, label in ((0.01, "10 ms"), (0.1, "100 ms"), (1, "1 s"), (10, "10 s"), (60, "1 min")):
        y = _y(seconds, plot_h)
        parts.append(
            f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e3e3"/>'
        )
        parts.append(
            f'<text x="{MARGIN - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{label}</text>'
        )
    for minutes in (60, 45, 30, 15, 0):
        x = MARGIN + plot_w * (60 - minutes) / 60
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - MARGIN + 14}" {SMALL_CENTRED}>-{minutes} min</text>')
    for minutes_ago, latency in points:
        x = MARGIN + plot_w * (60 - min(minutes_ago, 60)) / 60
        parts.append(
            f'<circle cx="{x:.1f}" cy="{_y(latency, plot_h):.1f}" r="2" fill="#417690" fill-opacity="0.6"/>'
        )
    if not points:
        parts.append(
            f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" {SMALL_CENTRED}>no email sent in the last hour</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # built from numbers only, no text from users


def _y(seconds: float, plot_h: float) -> float:
    clamped = min(max(seconds, LOW), HIGH)
    share = (math.log10(clamped) - math.log10(LOW)) / (math.log10(HIGH) - math.log10(LOW))
    return MARGIN + plot_h * (1 - share)


def _summary(latencies: list[float]) -> LatencySummary | None:
    if len(latencies) < 2:
        return None
    cuts = quantiles(latencies, n=100)
    return {"count": len(latencies), "p50_ms": round(cuts[49] * 1000), "p95_ms": round(cuts[94] * 1000)}


def _provider_state(sending: SendingNow) -> str:
    """The tile's figure: the first provider's circuit state; while it cannot take emails and a
    fallback is set, whether the fallback sends ("fallback") or none does ("none")."""
    if sending.fallback is None or sending.provider == sending.first.provider:
        return sending.first.state.replace("_", " ")
    return "fallback" if sending.provider else "none"
