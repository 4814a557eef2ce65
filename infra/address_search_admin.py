"""The admin's search on a table that keeps an address's keyed hash (infra/keyed_hash.py): an
address typed in the search box also finds the rows whose address was erased, or was never
kept, through its hash."""

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest

from infra.keyed_hash import address_hashes


class AddressHashSearch:
    """Mixed into a ModelAdmin whose model has an `address_hash` column."""

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        found, may_have_duplicates = super().get_search_results(  # type: ignore[misc]
            request, queryset, search_term
        )
        if "@" in search_term:
            found |= queryset.filter(address_hash__in=address_hashes(search_term))
        return found, may_have_duplicates
