"""POST /api/orders/<id>/refunds/: money goes back to the customer, who gets its email; and
POST /api/orders/<id>/cancel/ with a refund announced in the same call, told in the
cancellation's email. Idempotent by the shop's refund id. Views validate, call the service,
serialize."""

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.order_input import StrictSerializer, text_field
from api.orders import OrderChangeApi, OrderOutputSerializer, client_token
from api.schema import error_responses
from api.shipments import ShipmentLineInput
from apiauth.models import ApiToken
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderChange, OrderChangeConflict, OrderNotFound
from orders.content import MAX_LINES, MAX_MINOR_AMOUNT, NAME_TEXT, SHORT_TEXT
from orders.refunds import RefundRefused, RefundRequest, order_cancel_with_refund, refund_create


@extend_schema_serializer(component_name="RefundInput")
class RefundInput(StrictSerializer):
    refund_id = text_field(
        SHORT_TEXT, help_text="The shop's id of the refund: sending it again returns the same."
    )
    amount = serializers.IntegerField(
        min_value=1,
        max_value=MAX_MINOR_AMOUNT,
        help_text="What goes back, in the order currency's minor units.",
    )
    lines = serializers.ListField(
        child=ShipmentLineInput(),
        required=False,
        max_length=MAX_LINES,
        help_text="The order's lines it refunds and how many of each, if it refunds lines.",
    )
    reason = text_field(NAME_TEXT, required=False, help_text="Why, in words the customer reads.")
    shipment_id = text_field(
        SHORT_TEXT, required=False, help_text="The shop's id of the parcel it answers (a return), if any."
    )


def refund_request(data: dict[str, Any]) -> RefundRequest:
    return RefundRequest(
        shop_refund_id=data["refund_id"],
        amount_minor=data["amount"],
        lines=[dict(line) for line in data.get("lines", [])],
        reason=data.get("reason", ""),
        shop_shipment_id=data.get("shipment_id", ""),
    )


class OrderRefundApi(APIView):
    @extend_schema(
        request=RefundInput,
        responses={
            201: OrderOutputSerializer,
            200: OrderOutputSerializer,
            **error_responses(with_body=True, also=(404, 409)),
        },
        description='Money goes back to the customer: a "refunded" email, after the confirmation (and '
        "after the cancellation, or the email of the parcel it answers). The same refund_id and body "
        "again is 200 and nothing more; another body, 409 refund_id_taken. More than was paid (the "
        "order's total once it is paid, nothing before) less earlier refunds is 409 refund_exceeds_paid "
        "naming both amounts, or saying that the order was never paid; lines of an order whose content "
        "was erased, 409 order_erased.",
    )
    def post(self, request: Request, order_id: UUID) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["The body must be a JSON object."]})
        serializer = RefundInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        api_token = client_token(request)
        try:
            creation = refund_create(
                order_id=order_id, api_token=api_token, request=refund_request(serializer.validated_data)
            )
        except OrderNotFound as exc:
            raise NotFound(str(exc)) from exc
        except RefundRefused as exc:
            return Response({"error": exc.code, "message": str(exc)}, status=status.HTTP_409_CONFLICT)
        order = order_get_with_notifications(order_id=order_id, api_token=api_token)
        if creation.replayed:
            return Response(OrderOutputSerializer(order).data, headers={"Idempotent-Replayed": "true"})
        return Response(OrderOutputSerializer(order).data, status=status.HTTP_201_CREATED)


@extend_schema_serializer(component_name="OrderCancelInput")
class OrderCancelInput(OrderChangeApi.InputSerializer):
    refund = RefundInput(
        required=False,
        help_text="What the cancellation refunds: its email says so, and no refund email follows.",
    )


class OrderCancelApi(OrderChangeApi):
    """POST /api/orders/<id>/cancel/, optionally with the refund it brings."""

    input_serializer = OrderCancelInput

    @extend_schema(
        request=OrderCancelInput,
        responses={200: OrderOutputSerializer, **error_responses(with_body=True, also=(404, 409))},
        description="Cancel the order: the customer gets a cancellation email (its confirmation is "
        "skipped if it had not gone out). With `refund`, the refund is recorded in the same "
        "transaction and the cancellation's email says what is refunded; no refund email follows.",
    )
    def post(self, request: Request, order_id: UUID) -> Response:
        return super().post(request, order_id)

    def change_with(self, *, order_id: UUID, data: dict[str, Any], api_token: ApiToken) -> OrderChange:
        refund = refund_request(data["refund"]) if "refund" in data else None
        try:
            return order_cancel_with_refund(
                order_id=order_id, api_token=api_token, expected_version=data.get("version"), refund=refund
            )
        except RefundRefused as exc:
            raise OrderChangeConflict(str(exc), code=exc.code) from exc
