import uuid

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Shop",
            fields=[
                (
                    "id",
                    models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False),
                ),
                ("slug", models.SlugField(unique=True)),
                (
                    "name",
                    models.CharField(help_text="The shop's name as its customers know it.", max_length=200),
                ),
                (
                    "platform",
                    models.CharField(
                        choices=[
                            ("shopify", "Shopify"),
                            ("woocommerce", "WooCommerce"),
                            ("saleor", "Saleor"),
                        ],
                        max_length=16,
                    ),
                ),
                ("domain", models.CharField(max_length=255)),
                ("webhook_secret", models.CharField(blank=True, max_length=255)),
                ("active", models.BooleanField(default=True)),
                (
                    "sender",
                    models.CharField(
                        blank=True,
                        help_text='The From of its emails, e.g. "Tea House <orders@tea.example>". '
                        "Empty: the deployment's setting.",
                        max_length=254,
                    ),
                ),
                (
                    "url",
                    models.URLField(
                        blank=True, help_text="The shop's address. Empty: the deployment's setting."
                    ),
                ),
                ("logo_url", models.URLField(blank=True, help_text="Empty: the deployment's setting.")),
                (
                    "primary_color",
                    models.CharField(
                        blank=True,
                        help_text="#rrggbb. Empty: the deployment's setting.",
                        max_length=7,
                        validators=[
                            django.core.validators.RegexValidator("^#[0-9a-fA-F]{6}$", "Write it as #rrggbb.")
                        ],
                    ),
                ),
                (
                    "support_email",
                    models.EmailField(
                        blank=True, help_text="Empty: the deployment's setting.", max_length=254
                    ),
                ),
                (
                    "footer_address",
                    models.CharField(
                        blank=True, help_text="Empty: the deployment's setting.", max_length=300
                    ),
                ),
                (
                    "legal_name",
                    models.CharField(
                        blank=True, help_text="Empty: the deployment's setting.", max_length=200
                    ),
                ),
                (
                    "legal_address",
                    models.CharField(
                        blank=True, help_text="Empty: the deployment's setting.", max_length=300
                    ),
                ),
                (
                    "phone",
                    models.CharField(blank=True, help_text="Empty: the deployment's setting.", max_length=64),
                ),
                (
                    "register",
                    models.CharField(
                        blank=True, help_text="Empty: the deployment's setting.", max_length=200
                    ),
                ),
                ("terms_url", models.URLField(blank=True, help_text="Empty: the deployment's setting.")),
                ("withdrawal_url", models.URLField(blank=True, help_text="Empty: the deployment's setting.")),
                (
                    "withdrawal_days",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="At least 14. Empty: the deployment's setting.",
                        null=True,
                        validators=[django.core.validators.MinValueValidator(14)],
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={"ordering": ["name"]},
        ),
    ]
