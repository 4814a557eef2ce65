"""The retention job's range of provider events by age: a BRIN index, built concurrently
(outside a transaction) so webhooks keep storing events while it is built on a table that was
never pruned before."""

import django.contrib.postgres.indexes
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("notifications", "0022_attempt_recipient_before_corrections"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="providerevent",
            index=django.contrib.postgres.indexes.BrinIndex(
                fields=["received_at"], name="provider_event_received_brin"
            ),
        ),
    ]
