"""PATCH /api/orders/<id>/: what a shop's order holds, changed after it was placed (lines added,
removed or changed, and the totals that follow). The view validates, calls the service,
serializes; what an edit may do is decided in orders/edits.py."""

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.order_input import (
    AddressInput,
    DiscountInput,
    LineInput,
    ShippingInput,
    StrictSerializer,
    minor_field,
    text_field,
)
from api.orders import OrderOutputSerializer, client_token
from api.schema import error_responses
from api.validators import reject_invisible_characters
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderChangeConflict, OrderNotFound, order_not_found_message
from orders.content import MAX_DISCOUNTS, MAX_LINES, NAME_TEXT, ContentMismatch
from orders.currencies import MoneyRefused
from orders.edits import OrderEditRefused, order_edit


@extend_schema_serializer(component_name="OrderEditInput")
class OrderEditInput(StrictSerializer):
    """The parts of a shop's order that may change; each one sent replaces the order's whole
    (the lines all of them), each absent stays. Its number, customer address, currency and
    language name the order and do not change."""

    unknown_field_message = "This field is not one an edit may change."

    lines = serializers.ListField(child=LineInput(), min_length=1, max_length=MAX_LINES)
    total = minor_field(
        min_value=1, help_text="lines + shipping - discounts after the change, in minor units."
    )
    # Optional, but never blank: a new order must have one (ShopOrderInput).
    customer_name = serializers.CharField(
        max_length=NAME_TEXT, required=False, allow_blank=False, validators=[reject_invisible_characters]
    )
    shipping_address = AddressInput(required=False)
    billing_address = AddressInput(required=False)
    shipping = ShippingInput(required=False)
    discounts = serializers.ListField(child=DiscountInput(), required=False, max_length=MAX_DISCOUNTS)
    tax_total = minor_field(required=False, help_text="The taxes in the new total.")
    payment_method = text_field(NAME_TEXT, required=False)
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="The version you saw; the edit is refused if it moved on."
    )


_ORDER_EDIT_SCHEMA = extend_schema(
    request=OrderEditInput,
    responses={200: OrderOutputSerializer, **error_responses(with_body=True, also=(404, 409))},
    description="Change what a shop's order holds: its lines (all of them), and what follows from them "
    "(shipping, discounts, taxes, the total), which must add up as for a new order (400 naming the "
    'field). The order gets a new version and the customer one "your order was changed" email '
    "listing what was added, removed or changed and the new total. An edit that leaves the order as "
    "it is stores nothing and sends nothing (200 with Order-Unchanged: true). 409: order_has_no_lines "
    "(placed with the short body), order_cancelled, order_erased, order_shipped (every line has "
    "shipped), edit_below_shipped, edit_below_refunded, conflict (the version moved on).",
)


class OrderDetailApi(APIView):
    """GET /api/orders/<id>/ reads the order; PATCH changes what it holds."""

    @extend_schema(responses={200: OrderOutputSerializer, **error_responses(with_body=False, also=(404,))})
    def get(self, request: Request, order_id: UUID) -> Response:
        order = order_get_with_notifications(order_id=order_id, api_token=client_token(request))
        if order is None:  # missing, or another token's: the same answer (orders/changes.py)
            raise NotFound(order_not_found_message(order_id))
        return Response(OrderOutputSerializer(order).data)

    @_ORDER_EDIT_SCHEMA
    def patch(self, request: Request, order_id: UUID) -> Response:
        return order_edit_answer(request, order_id)


def order_edit_answer(request: Request, order_id: UUID) -> Response:
    """The PATCH of OrderDetailApi."""
    if not isinstance(request.data, dict):
        raise ValidationError({"non_field_errors": ["The body must be a JSON object."]})
    serializer = OrderEditInput(data=request.data)
    serializer.is_valid(raise_exception=True)
    parts: dict[str, Any] = dict(serializer.validated_data)
    expected_version = parts.pop("version", None)
    api_token = client_token(request)
    try:
        editing = order_edit(
            order_id=order_id, api_token=api_token, parts=_as_stored(parts), expected_version=expected_version
        )
    except OrderNotFound as exc:
        raise NotFound(str(exc)) from exc
    except ContentMismatch as exc:
        raise ValidationError({exc.field: [str(exc)]}) from exc
    except MoneyRefused as exc:
        raise ValidationError({"total" if exc.field == "amount" else exc.field: [str(exc)]}) from exc
    except (OrderEditRefused, OrderChangeConflict) as exc:
        return Response({"error": exc.code, "message": str(exc)}, status=status.HTTP_409_CONFLICT)
    order = order_get_with_notifications(order_id=order_id, api_token=api_token)
    headers = {} if editing.edit is not None else {"Order-Unchanged": "true"}
    return Response(OrderOutputSerializer(order).data, headers=headers)


def _as_stored(parts: dict[str, Any]) -> dict[str, Any]:
    """The validated parts as the content keeps them: plain dicts and lists (JSON)."""
    stored: dict[str, Any] = {}
    for key, value in parts.items():
        if isinstance(value, list):
            stored[key] = [dict(item) for item in value]
        elif isinstance(value, dict):
            stored[key] = dict(value)
        else:
            stored[key] = value
    return stored
