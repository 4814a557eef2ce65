"""A connected shop's page in the admin: its settings, and what connecting it to its platform
takes (the webhook's address and topics, the subscription query where the platform needs one, a
test of the connection), each as its platform's row says (intake/platforms.py).

A shop's secret is typed in and never shown back (intake/shop_form.py); the list and the page
show only its last characters."""

import uuid
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse

from infra.staff_request import StaffRequest
from intake.models import PlatformDelivery
from intake.platforms import platform_of
from intake.sample_delivery import SampleRefused, sample_delivery_send
from intake.shop_form import ShopForm
from shops.models import SHOP_EMAIL_FIELDS, Shop

# Typed in, never shown back (intake/shop_form.py), whoever looks.
_SECRET_FIELDS = frozenset({"webhook_secret", "api_key", "api_secret"})


@admin.register(Shop)
class ShopAdmin(admin.ModelAdmin):
    form = ShopForm
    list_display = ["name", "platform", "domain", "secret_hint", "active", "created_at"]
    list_filter = ["platform", "active"]
    readonly_fields = ["secret_hint"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # a shop's pages are HTTPS
    fieldsets = [
        (None, {"fields": ["name", "slug", "platform", "domain", "webhook_secret", "secret_hint", "active"]}),
        ("WooCommerce's REST API (for shop_backfill)", {"fields": ["api_key", "api_secret"]}),
        (
            "Its emails: each field left empty is the deployment's setting",
            {"fields": list(SHOP_EMAIL_FIELDS[1:])},
        ),
    ]
    prepopulated_fields = {"slug": ("name",)}
    change_form_template = "admin/intake/shop/change_form.html"

    def get_fieldsets(self, request: HttpRequest, obj: Shop | None = None) -> Any:
        """Staff who may only view a shop get its page read-only, and Django fills read-only
        fields from the model, secrets and all: theirs leaves the secrets out (the hint stays)."""
        fieldsets = super().get_fieldsets(request, obj)
        if self.has_change_permission(request, obj):
            return fieldsets
        shown = [
            (name, {**options, "fields": [f for f in options["fields"] if f not in _SECRET_FIELDS]})
            for name, options in fieldsets
        ]
        return [(name, options) for name, options in shown if options["fields"]]

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.test_delivery_view)
        return [
            path("<uuid:shop_id>/test-delivery/", view, name="shops_shop_test_delivery"),
            *super().get_urls(),
        ]

    def test_delivery_view(self, request: StaffRequest, shop_id: uuid.UUID) -> HttpResponse:
        """POST only: a signed sample order through the real intake, its emails to the asker; or,
        for a platform that signs with its own key, its connection check."""
        shop = self.get_object(request, str(shop_id))
        back = reverse("admin:shops_shop_change", args=[shop_id])
        if request.method != "POST" or shop is None or not self.has_change_permission(request, shop):
            raise PermissionDenied
        connection_check = platform_of(shop).connection_check
        if connection_check is not None:
            passed, found = connection_check(shop)
            self.message_user(request, found, messages.SUCCESS if passed else messages.ERROR)
            return redirect(back)
        if not request.user.email:
            self.message_user(
                request,
                "Your admin user has no email address: the test order's emails go to you.",
                messages.ERROR,
            )
            return redirect(back)
        try:
            received = sample_delivery_send(
                shop, address=request.user.email, actor=request.user, actor_name=request.user.get_username()
            )
        except SampleRefused as exc:
            self.message_user(request, f"The intake refused the test delivery: {exc}", messages.ERROR)
            return redirect(back)
        delivery = received.delivery
        level = messages.SUCCESS if delivery.outcome == PlatformDelivery.Outcome.USED else messages.WARNING
        self.message_user(
            request,
            f"The test delivery was received: {delivery.get_outcome_display()} ({delivery.reason}). "
            f"Its emails go to {request.user.email}.",
            level,
        )
        return redirect(back)

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
            platform = platform_of(shop)
            # Absolute, as the platform must be given it.
            context["webhook_url"] = request.build_absolute_uri(reverse("shop_webhook", args=[shop.slug]))
            context["webhook_topics"] = [platform.topic_shown(t) for t in sorted(platform.reading.topics)]
            context["subscription_query"] = platform.subscription_query
            context["connection_check"] = platform.connection_check is not None
            context["test_delivery_url"] = reverse("admin:shops_shop_test_delivery", args=[shop.pk])
        return super().change_view(request, object_id, form_url, extra_context=context)
