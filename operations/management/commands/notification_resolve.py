"""Finish an email that waits for a person, from the command line: the same services as the
admin's review screen, each audited under the operating-system user (or --actor).

  manage.py notification_resolve 42 mark-sent --evidence "Resend log: re_123 delivered 10:02"
  manage.py notification_resolve 42 send-again --comment "..." --accept-second-email-risk
  manage.py notification_resolve 42 correct-address new@example.com --comment "typo, per phone call"
  manage.py notification_resolve 42 reject --comment "customer asked us not to write"
  manage.py notification_resolve 42 retry
"""

import getpass

from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.models import Notification
from operations.review.resolve import (
    SECOND_EMAIL_RISK,
    notification_mark_sent,
    notification_send_again,
)
from operations.review.services import ReviewRefused, notification_reject, notification_retry


class Command(BaseCommand):
    help = "Finish an email that waits for a person: mark sent, send again, correct the address, reject."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("notification_id", type=int, help="the notification's id (the admin shows it)")
        parser.add_argument("--actor", help="who decides (default: the operating-system user)")
        sub = parser.add_subparsers(dest="resolution", required=True, parser_class=type(parser))
        mark = sub.add_parser("mark-sent", help="you checked at the provider that it went out")
        mark.add_argument("--evidence", required=True, help="what you checked, in words")
        again = sub.add_parser("send-again", help="send under a new key (the customer may get it twice)")
        again.add_argument("--comment", required=True, help="why")
        again.add_argument("--accept-second-email-risk", action="store_true", help=SECOND_EMAIL_RISK)
        correct = sub.add_parser("correct-address", help="change the order's address, then send again")
        correct.add_argument("address", help="the corrected address")
        correct.add_argument("--comment", required=True, help="why, and who confirmed the address")
        reject = sub.add_parser("reject", help="it will not be sent")
        reject.add_argument("--comment", required=True, help="why")
        sub.add_parser("retry", help="send again under the same key (where the provider can deduplicate)")

    def handle(self, *args: object, **options: object) -> None:
        notification_id = int(options["notification_id"])  # type: ignore[call-overload]
        actor = str(options.get("actor") or getpass.getuser())
        try:
            result = self._resolve(str(options["resolution"]), notification_id, actor, options)
        except ReviewRefused as exc:
            raise CommandError(f"Refused, nothing changed: {exc}") from exc
        status = Notification.objects.values_list("status", flat=True).get(pk=notification_id)
        self.stdout.write(f"notification {notification_id}: {result}; it is now {status}")

    def _resolve(self, resolution: str, notification_id: int, actor: str, options: dict) -> str:
        if resolution == "mark-sent":
            return notification_mark_sent(
                notification_id=notification_id, actor=None, actor_name=actor, evidence=options["evidence"]
            )
        if resolution in ("send-again", "correct-address"):
            return notification_send_again(
                notification_id=notification_id,
                actor=None,
                actor_name=actor,
                comment=options["comment"],
                accept_second_email_risk=bool(options.get("accept_second_email_risk")),
                new_address=options.get("address") or "",
            )
        notification = Notification.objects.filter(pk=notification_id).first()
        if notification is None:
            raise ReviewRefused(f"No notification has the id {notification_id}.")
        if resolution == "reject":
            return notification_reject(
                notification=notification, actor=None, actor_name=actor, comment=options["comment"]
            )
        return notification_retry(notification=notification, actor=None, actor_name=actor)
