"""Attempts from before this column are left empty ("the order's address"), except those of
orders a reviewer has already corrected: each attempt started before a correction went to
that correction's previous address. Taken in the order the corrections were made, each one
fills only the attempts no earlier correction claimed. (The attempt's start is the worker's
clock and the correction's the web's; a correction follows a reviewer reading the finished
attempt, minutes later, far beyond any skew between the two.)"""

from django.db import migrations


def recipients_before_corrections(apps, schema_editor):
    correction_model = apps.get_model("notifications", "AddressCorrection")
    attempt_model = apps.get_model("notifications", "DeliveryAttempt")
    for correction in correction_model.objects.order_by("corrected_at", "pk").iterator():
        attempt_model.objects.filter(
            notification__order_id=correction.order_id,
            recipient="",
            started_at__lt=correction.corrected_at,
        ).update(recipient=correction.previous_address)


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0021_attempt_recipient"),
    ]

    operations = [
        migrations.RunPython(recipients_before_corrections, migrations.RunPython.noop),
    ]
