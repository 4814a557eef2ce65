"""Emails attempted before emails had templates get a snapshot of the plain-text wording they
were sent with. One of them still being retried must go out with those same bytes: new
wording under the same idempotency key is refused by the provider as a conflict. For the
others, the snapshot shows a reviewer what the customer received. The wording is copied here,
not imported, so this migration means the same thing forever."""

import hashlib
import json

from django.db import migrations

WORDING = {
    "order_confirmation": (
        "Your order {short} is confirmed",
        "Thank you for your order.\n\nOrder number: {id}\nAmount: {amount} {currency}\n\n"
        "We will write again when it ships.\n",
    ),
    "order_cancellation": (
        "Your order {short} is cancelled",
        "Your order has been cancelled.\n\nOrder number: {id}\nAmount: {amount} {currency}\n\n"
        "If you paid for it, the amount is refunded to you.\n",
    ),
}


def snapshot_earlier_emails(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    earlier = Notification.objects.filter(attempt_count__gt=0, email_content_hash="").select_related("order")
    for notification in earlier.iterator(chunk_size=500):
        order = notification.order
        subject, text = WORDING[notification.kind]
        values = {
            "short": str(order.id)[:8],
            "id": order.id,
            "amount": order.amount,
            "currency": order.currency,
        }
        subject, text = subject.format(**values), text.format(**values)
        Notification.objects.filter(pk=notification.pk).update(
            email_locale="en",
            email_subject=subject,
            email_text=text,
            email_html="",
            email_content_hash=hashlib.sha256(json.dumps([subject, text, ""]).encode()).hexdigest(),
            email_rendered_at=notification.first_attempt_at,
        )


class Migration(migrations.Migration):
    dependencies = [("notifications", "0012_email_content_snapshot")]

    operations = [migrations.RunPython(snapshot_earlier_emails, migrations.RunPython.noop, elidable=True)]
