"""`make demo` (python -m tools.demo): a few minutes of orders against `make run` (started here if it
is not up), with a provider that refuses, bounces, drops connections and goes down for a while;
then a reviewer's decision, and a list of what to look at. Exit status 1 if the stream placed
fewer orders than it was asked to, fewer than four email states came of it, no order was
shipped in parcels and refunded, or no invoice and no credit note came of it."""

import argparse
import json
import sys
import time
from datetime import UTC, datetime

import requests

from tools.demo.documents import Documents, documents_print, documents_read
from tools.demo.platforms import PlatformStream, platform_check, platform_shops_connect
from tools.demo.scenario import Placed, ShopStream
from tools.demo.stack import REPO, manage, stack_ensure

SETTLE_SECONDS = 90


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long orders come in (default 3)")
    parser.add_argument("--rate", type=float, default=2.0, help="orders per second (default 2)")
    parser.add_argument("--web", default="http://127.0.0.1:8000")
    parser.add_argument("--mailsim", default="http://127.0.0.1:8025")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.rate <= 0:
        parser.error("--minutes and --rate must be positive")
    started_pid = stack_ensure(args.web, args.mailsim)
    started_at = datetime.now(UTC)
    token = manage("create_api_token", "demo", "--replace").strip()
    asked = int(args.minutes * 60 * args.rate)
    platform_shops_connect()
    platforms = PlatformStream(args.web, seed=args.seed)
    print(
        f"placing about {asked} orders over {args.minutes:g} min at {args.rate:g}/s through the API, "
        f"and as many through a Shopify and a WooCommerce shop's webhooks"
    )
    placed = ShopStream(
        args.web,
        args.mailsim,
        token,
        minutes=args.minutes,
        rate=args.rate,
        seed=args.seed,
        also=platforms.tick,
    ).run()
    status = _settle()
    rejected = _a_reviewers_decision(placed.refused)
    status = json.loads(manage("outbox_status", "--json"))
    _print_summary(args, placed, status, rejected, started_pid)
    _print_platforms(args.web, platforms)
    documents = documents_read(started_at)
    documents_print(args.web, documents)
    return _outcome(placed, asked, status, documents, platform_check(platforms.tally))


def _outcome(
    placed: Placed, asked: int, status: dict, documents: Documents, platform_problems: list[str]
) -> int:
    """0, or 1 and why: too few orders placed, fewer than four email states, a kind of email or
    document with nothing to show, or the platforms' deliveries not as expected."""
    statuses = {name for name, count in status["notifications_by_status"].items() if count}
    short = len(placed.orders) < asked * 0.95
    # Every kind of email must be there to look at: parcels (two per order), a parcel's journey
    # (its news) and refunds; and the documents: invoices of paid orders, a refund's credit note.
    kinds_missing = placed.parcels < 2 or placed.refunds < 1 or placed.parcel_news < 2 or placed.edits < 1
    kinds_missing = kinds_missing or documents.of_kind("invoice") < 1 or documents.of_kind("credit_note") < 1
    if short or len(statuses) < 4 or kinds_missing or platform_problems:
        print(
            f"DEMO INCOMPLETE: {len(placed.orders)} of {asked} orders placed, states {sorted(statuses)}, "
            f"{placed.parcels} parcels, {placed.parcel_news} pieces of their news, {placed.refunds} refunds, "
            f"{placed.edits} changed, {documents.of_kind('invoice')} invoices, "
            f"{documents.of_kind('credit_note')} credit notes; "
            "shop platforms: " + ("; ".join(platform_problems) or "as expected")
        )
        return 1
    return 0


def _print_platforms(web: str, platforms: PlatformStream) -> None:
    tally = platforms.tally
    answers = ", ".join(f"{count} {word}" for word, count in sorted(tally.answers.items()))
    print(
        f"""
Shop platforms: {len(tally.orders)} orders of a Shopify and a WooCommerce shop in {tally.deliveries}
webhook deliveries ({tally.retries} sent twice, {tally.early_parcels} parcels before their order,
{tally.late_updates} older updates after newer ones;
{tally.parcels} parcels, {tally.parcel_news} pieces of a parcel's news, {tally.refunds} refunds),
answered: {answers or "none"}.
  Deliveries:        {web}/admin/intake/platformdelivery/
  Could not use:     {web}/admin/intake/unusabledelivery/
  The shops:         {web}/admin/shops/shop/"""
    )


def _settle() -> dict:
    """Wait (bounded) until nothing is on its way any more."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        status = json.loads(manage("outbox_status", "--json"))
        moving = sum(status["notifications_by_status"].get(s, 0) for s in ("pending", "sending"))
        if not moving or time.monotonic() > deadline:
            return status
        time.sleep(3)


def _a_reviewers_decision(refused: list[str]) -> str:
    """One refused email rejected by a person, as a reviewer would (audited): a rejected example."""
    found = manage(
        "shell",
        "--no-imports",
        "-c",
        "from notifications.models import Notification; "
        f"print(Notification.objects.filter(order_id__in={refused!r}, status='failed')"
        ".values_list('pk', flat=True).first() or '')",
    ).strip()
    if not found:
        return ""
    comment = "demo: the customer's address no longer exists"
    manage("notification_resolve", found, "--actor", "demo", "reject", "--comment", comment)
    return found


def _print_summary(
    args: argparse.Namespace, placed: Placed, status: dict, rejected: str, started_pid: int | None
) -> None:
    web = args.web
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(status["notifications_by_status"].items()) if n)
    dead = sum(status["dead_letter_queues"].values())
    password = REPO / "var" / "flower-password"
    flower = password.read_text().strip() if password.exists() else "in var/flower-password"
    example = placed.refused[0] if placed.refused else (placed.orders[0] if placed.orders else "<order id>")
    print()
    print(
        f"{len(placed.orders)} orders placed ({placed.paid} paid, {placed.cancelled} cancelled, "
        f"{placed.edits} changed after they were placed, "
        f"{placed.parcels} parcels shipped with {placed.parcel_news} pieces of their carriers' news, "
        f"{placed.refunds} partly refunded); ",
        end="",
    )
    print(f"the provider was down for {placed.outage_seconds:.0f} s.")
    print(f"Emails: {by_status}. Dead letters: {dead}.")
    if rejected:
        print(f"One refused email (notification {rejected}) was rejected by a reviewer, as an example.")
    print(
        f"""
What to look at (log in first; make a user with: .venv/bin/python manage.py createsuperuser):
  Dashboard:         {web}/admin/dashboard/
  Review screen:     {web}/admin/notifications/notification/?needs_person=yes
  Dead letters:      {web}/admin/dead-letters/
  Mail provider:     {web}/admin/mail-provider/
  Reconciliation:    .venv/bin/python manage.py reconcile, then {web}/admin/notifications/reconcilereport/
  Flower:            http://127.0.0.1:5555  (user ops, password {flower})
  One email's story: .venv/bin/python manage.py trace_event {example}
  Everything:        .venv/bin/python manage.py outbox_status"""
    )
    if started_pid:
        print(f"\nmake run keeps running in the background; stop it with: kill -- -{started_pid}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except requests.RequestException as exc:
        sys.exit(f"the stack stopped answering: {exc}")
