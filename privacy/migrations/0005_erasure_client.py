"""An erasure through the API records the client whose token asked (privacy.Erasure.client):
it reached that client's orders only, and only that client's export lists it. A nullable
column without a default: no table rewrite, and the previous release's inserts leave it NULL."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("privacy", "0004_export")]

    operations = [
        migrations.AddField(
            model_name="erasure", name="client", field=models.UUIDField(blank=True, null=True)
        ),
    ]
