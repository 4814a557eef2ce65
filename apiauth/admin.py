"""The API tokens in the admin: seen, never edited. A revoked token must stay revoked, so
nothing of a token is a form field (clearing `revoked_at` here once brought one back, without
a trace); revoking is the Revoke action, which calls the service `revoke_api_token` calls and
records who did it. Tokens are made with `manage.py create_api_token`, which shows the value
once, and are never deleted: their orders and their revocation point at them."""

from typing import ClassVar

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from apiauth.models import ApiToken, ApiTokenRevocation
from apiauth.services import api_tokens_revoke


class StaffRequest(HttpRequest):
    """An admin request: `admin_view` lets only an authenticated staff user through."""

    user: User


class ApiTokenRevocationInline(admin.TabularInline):
    model = ApiTokenRevocation
    fields: ClassVar[tuple[str, ...]] = ("revoked_at", "actor_name", "via", "token_name")
    readonly_fields = fields
    verbose_name = "revocation"
    verbose_name_plural = "revocation (who, when, from where)"
    can_delete = False
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "created_at", "last_used_at", "revoked_at", "revoked_by"]
    list_select_related = ["revocation"]
    fields = ("name", "client", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    search_fields = ["name", "prefix"]
    inlines = [ApiTokenRevocationInline]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # a POST to the change form is refused (403), whatever it carries

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("apiauth.revoke_apitoken")

    @admin.display(description="revoked by")
    def revoked_by(self, token: ApiToken) -> str:
        revocation = getattr(token, "revocation", None)
        return revocation.actor_name if revocation is not None else "-"

    @admin.action(
        description="Revoke (the token stops working at once; cannot be undone)", permissions=["revoke"]
    )
    def revoke(self, request: StaffRequest, queryset: QuerySet[ApiToken]) -> None:
        selected = list(queryset.order_by("pk"))
        revoked = api_tokens_revoke(
            token_ids=[token.pk for token in selected],
            actor_name=request.user.get_username(),
            actor=request.user,
            via=ApiTokenRevocation.Via.ADMIN,
        )
        if revoked:
            names = ", ".join(f"{token.name} ({token.prefix}…)" for token in revoked)
            self.message_user(request, f"Revoked {len(revoked)} token(s): {names}.", messages.SUCCESS)
        already = [token for token in selected if token not in revoked]
        if already:
            names = ", ".join(f"{token.name} ({token.prefix}…)" for token in already)
            self.message_user(request, f"Already revoked, left as they were: {names}.", messages.WARNING)
