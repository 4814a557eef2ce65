"""The pipelines as the phases drive them, and the check that a phase's load was all done:
a benchmark whose orders did not all go through has measured less than it reports."""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Pipeline:
    """One of the pipelines, as the phases drive it (functions of tools/bench/measure.py)."""

    name: str  # "ours", "naive" or "tuned_naive" (the naive one with its worker tuned)
    place: Callable[..., None]
    wait_all_sent: Callable[[], None]
    completions: Callable[[], list[tuple]]

    def finished(self, placed: int) -> list[tuple]:
        """The completions of the `placed` orders, once every one is sent."""
        self.wait_all_sent()
        return completions_check(self.completions(), placed=placed, pipeline=self.name)


class LoadShortfall(RuntimeError):
    """A phase's pipeline finished fewer orders than the phase placed: its figures would
    describe less work than they claim, so the run fails instead of reporting them."""


def completions_check(completions: list[tuple], *, placed: int, pipeline: str) -> list[tuple]:
    """Each placed order is one row (created, sent) in the pipeline's database: as many rows as
    orders placed, every one sent, or a LoadShortfall."""
    sent = sum(1 for _, sent_at in completions if sent_at is not None)
    if len(completions) != placed or sent != placed:
        raise LoadShortfall(
            f"{pipeline}: {placed} orders placed, {len(completions)} in the database, {sent} sent"
        )
    return completions


# The share of an offered load that must be placed for its latency to count as that load's.
OFFERED_SHARE_PLACED = 0.9


def offered_check(placed_per_s: float, *, offered: float, pipeline: str) -> None:
    """A latency at an offered load holds only if the load was offered: placing that fell
    behind the schedule measured a lighter load than the report names."""
    if placed_per_s < OFFERED_SHARE_PLACED * offered:
        raise LoadShortfall(f"{pipeline}: {offered:g} orders/s offered, only {placed_per_s:.1f}/s placed")
