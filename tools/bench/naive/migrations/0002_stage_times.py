from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("naive", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="naiveorder", name="started_at", field=models.DateTimeField(null=True)
        ),
        migrations.AddField(model_name="naiveorder", name="provider_ms", field=models.FloatField(null=True)),
    ]
