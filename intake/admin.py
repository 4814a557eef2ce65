"""The connected shops and their platforms' deliveries in the admin.

A shop's secret is typed in and never shown back: the form's field is empty on every page and
keeps the stored secret when left empty; the list and the page show only its last characters.
A delivery is read-only; one that could not be used can be run again after a fix."""

from email.utils import parseaddr
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.validators import validate_email
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse

from infra.read_only_admin import ReadOnlyAdmin
from infra.staff_request import StaffRequest
from intake import shopify
from intake.models import PlatformDelivery, UnusableDelivery
from intake.receive import delivery_rerun
from shops.models import SHOP_EMAIL_FIELDS, Shop


def _formfield(field: models.Field, **kwargs: Any) -> forms.Field | None:
    if isinstance(field, models.URLField):
        kwargs["assume_scheme"] = "https"  # a shop's pages are HTTPS
    return field.formfield(**kwargs)


class ShopForm(forms.ModelForm):
    webhook_secret = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False),
        help_text="Shopify: the app's client secret. Never shown again; leave empty to keep the one stored.",
    )

    class Meta:
        model = Shop
        formfield_callback = _formfield
        fields = ["name", "slug", "platform", "domain", "webhook_secret", "active", *SHOP_EMAIL_FIELDS[1:]]

    def clean_sender(self) -> str:
        sender: str = self.cleaned_data["sender"].strip()
        if sender:
            address = parseaddr(sender)[1]
            try:
                validate_email(address)
            except forms.ValidationError as exc:
                raise forms.ValidationError(
                    f"{sender!r} holds no email address: write it as Tea House <orders@tea.example>."
                ) from exc
        return sender

    def clean_webhook_secret(self) -> str:
        secret: str = self.cleaned_data["webhook_secret"]
        if secret:
            return secret
        if self.instance.pk and self.instance.webhook_secret:
            return self.instance.webhook_secret  # left empty: the stored one stays
        raise forms.ValidationError(
            "A new shop needs its secret: its deliveries cannot be checked without it."
        )


@admin.register(Shop)
class ShopAdmin(admin.ModelAdmin):
    form = ShopForm
    list_display = ["name", "platform", "domain", "secret_hint", "active", "created_at"]
    list_filter = ["platform", "active"]
    readonly_fields = ["secret_hint"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # a shop's pages are HTTPS
    fieldsets = [
        (None, {"fields": ["name", "slug", "platform", "domain", "webhook_secret", "secret_hint", "active"]}),
        (
            "Its emails: each field left empty is the deployment's setting",
            {"fields": list(SHOP_EMAIL_FIELDS[1:])},
        ),
    ]
    prepopulated_fields = {"slug": ("name",)}
    change_form_template = "admin/intake/shop/change_form.html"

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        shop = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if shop is not None:
            # Absolute, as the platform must be given it.
            context["webhook_url"] = request.build_absolute_uri(reverse("shop_webhook", args=[shop.slug]))
            context["webhook_topics"] = sorted(shopify.TOPICS | shopify.PRIVACY_TOPICS)
        return super().change_view(request, object_id, form_url, extra_context=context)


class DeliveryAdminBase(ReadOnlyAdmin):
    list_display = ["received_at", "shop", "topic", "outcome", "reason_short", "order", "runs"]
    list_filter = ["outcome", "topic", "shop"]
    search_fields = ["event_key", "webhook_id", "platform_order_id", "order__id", "order__number"]
    fields = (
        "shop",
        "topic",
        "event_key",
        "webhook_id",
        "platform_order_id",
        "outcome",
        "reason",
        "order",
        "received_at",
        "applied_at",
        "runs",
        "body",
    )
    readonly_fields = fields
    list_select_related = ["shop", "order"]

    @admin.display(description="reason")
    def reason_short(self, delivery: PlatformDelivery) -> str:
        return delivery.reason if len(delivery.reason) <= 120 else delivery.reason[:119] + "…"


@admin.register(PlatformDelivery)
class PlatformDeliveryAdmin(DeliveryAdminBase):
    """Every delivery, as received and as applied."""


@admin.register(UnusableDelivery)
class UnusableDeliveryAdmin(DeliveryAdminBase):
    """What a person must look at: deliveries that could not be used (the reason says why) and
    those waiting for their order. "Run again" applies them anew, after a fix."""

    actions = ["run_again"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlatformDelivery]:
        outcomes = [PlatformDelivery.Outcome.COULD_NOT_USE, PlatformDelivery.Outcome.WAITING]
        return super().get_queryset(request).filter(outcome__in=outcomes)

    def has_rerun_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("intake.rerun_platformdelivery")

    @admin.action(description="Run the selected deliveries again", permissions=["rerun"])
    def run_again(self, request: StaffRequest, queryset: QuerySet[PlatformDelivery]) -> None:
        outcomes: dict[str, int] = {}
        for delivery_id in queryset.values_list("id", flat=True):
            delivery = delivery_rerun(delivery_id, actor=request.user, actor_name=request.user.get_username())
            outcome = delivery.get_outcome_display() if delivery else "applied meanwhile"
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        summary = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
        self.message_user(request, f"Ran again: {summary}.", messages.SUCCESS)
