from django.contrib import admin
from django.http import HttpRequest

from apiauth.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["name", "prefix", "key_hash", "created_at", "last_used_at"]
    search_fields = ["name", "prefix"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tokens are made with `manage.py create_api_token`, which shows the value once
