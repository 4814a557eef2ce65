from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def refuse_shared_secrets(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Stop with the shops to change, rather than with the index's bare IntegrityError."""
    Shop = apps.get_model("shops", "Shop")
    shared = (
        Shop.objects.exclude(webhook_secret="")
        .values("webhook_secret")
        .annotate(shops=models.Count("id"))
        .filter(shops__gt=1)
    )
    groups = [
        sorted(Shop.objects.filter(webhook_secret=row["webhook_secret"]).values_list("slug", flat=True))
        for row in shared
    ]
    if groups:
        names = "; ".join(", ".join(group) for group in groups)
        raise RuntimeError(
            f"These connected shops share a webhook secret: {names}. A delivery of one would be "
            "accepted at the other's address. Give each its own secret (Shopify: an app per store; "
            "WooCommerce: a new secret on its webhooks, then on the shop's page), then migrate again."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("shops", "0002_shop_api_key"),
    ]

    operations = [
        migrations.RunPython(refuse_shared_secrets, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="shop",
            constraint=models.UniqueConstraint(
                condition=models.Q(("webhook_secret", ""), _negated=True),
                fields=("webhook_secret",),
                name="shop_secret_not_shared",
                violation_error_message="Another connected shop has this secret: each shop needs its own.",
            ),
        ),
    ]
