from django.contrib import admin
from django.http import HttpRequest

from orders.models import Order


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ["id", "number", "customer_email", "amount", "currency", "status", "version", "created_at"]
    list_filter = ["status", "currency"]
    search_fields = ["id", "number", "customer_email"]
    readonly_fields = [field.name for field in Order._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # orders come in through the API, which writes their events too
