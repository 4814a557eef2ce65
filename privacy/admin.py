"""Personal data in the admin: the page "A customer's personal data" (export or erase one
customer, privacy/admin_views.py) under /admin/privacy/erasure/customer/, and the erasures
done, read-only. An erasure's record holds no address, so the list never shows one; an
address searched for finds its erasures by the address's keyed hash.

The page is reached from the admin's home (the operators' list, operations' index template)
and from each order's page (a button that brings the order's address in the body of a POST:
privacy/templates/admin/orders/order/change_form.html, the order's change form as the admin
looks it up, so the orders app knows nothing of this one)."""

from functools import partial
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import URLPattern, path

from infra.address_search_admin import AddressHashSearch
from infra.read_only_admin import ReadOnlyAdmin
from privacy.admin_views import ERASE, EXPORT, customer_erasure, customer_export_download, customer_page
from privacy.models import Erasure, Export


@admin.register(Erasure)
class ErasureAdmin(AddressHashSearch, ReadOnlyAdmin):
    """Who erased, found as typed; an address, by its keyed hash (the records keep no address)."""

    list_display = ["id", "erased_at", "via", "actor_name", "changed_shown"]
    list_display_links = ["id", "erased_at"]
    list_filter = ["via"]
    search_fields = ["actor_name"]
    search_help_text = "An email address (finds its erasures by the address's keyed hash), or who erased."
    fields = readonly_fields = ("id", "erased_at", "via", "actor", "actor_name", "changed_shown")
    # An address searched for stays out of the links of the rows (the admin would carry it
    # there twice percent-encoded, which the access log's masking does not recognise).
    preserve_filters = False
    change_list_template = "privacy/erasure_change_list.html"

    @admin.display(description="what changed (rows by kind)")
    def changed_shown(self, erasure: Erasure) -> str:
        changed = [f"{kind.replace('_', ' ')}: {count}" for kind, count in erasure.changed.items() if count]
        return ", ".join(changed) or "nothing (nothing personal was held any more)"

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        may_use_page = request.user.has_perm(EXPORT) or request.user.has_perm(ERASE)
        return super().changelist_view(request, {"may_use_page": may_use_page, **(extra_context or {})})

    def get_urls(self) -> list[URLPattern]:
        def route(suffix: str, name: str, view: Any) -> URLPattern:
            wrapped = self.admin_site.admin_view(partial(view, model_admin=self))
            return path(f"customer/{suffix}", wrapped, name=f"privacy_erasure_{name}")

        own = [
            route("", "customer", customer_page),
            route("export/", "customer_export", customer_export_download),
            route("erase/", "customer_erase", customer_erasure),
        ]
        return own + super().get_urls()


@admin.register(Export)
class ExportAdmin(AddressHashSearch, ReadOnlyAdmin):
    """Who handed out whose data, when and how: recorded without the address, found by it."""

    list_display = ["id", "exported_at", "via", "actor_name", "orders"]
    list_filter = ["via"]
    search_fields = ["actor_name"]
    search_help_text = "An email address (finds its exports by the address's keyed hash), or who exported."
    fields = readonly_fields = ("id", "exported_at", "via", "actor", "actor_name", "orders")
    preserve_filters = False  # as the erasures': an address searched for stays out of the links
