"""POST /api/orders/<id>/shipments/: a parcel of the order left the shop; the customer gets its
email. Idempotent by the shop's shipment id. The view validates, calls the service, serializes."""

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.order_input import StrictSerializer, text_field
from api.orders import OrderOutputSerializer, client_token
from api.schema import error_responses
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderNotFound
from orders.content import MAX_LINES, MAX_QUANTITY, SHORT_TEXT
from orders.shipments import TRACKING_URL_MAX, ShipmentRefused, shipment_create, tracking_url_problem


class ShipmentLineInput(StrictSerializer):
    sku = text_field(SHORT_TEXT, help_text="The SKU of one of the order's lines.")
    quantity = serializers.IntegerField(min_value=1, max_value=MAX_QUANTITY)


@extend_schema_serializer(component_name="ShipmentInput")
class ShipmentInput(StrictSerializer):
    shipment_id = text_field(
        SHORT_TEXT, help_text="The shop's id of this parcel: sending it again returns the same shipment."
    )
    carrier = text_field(SHORT_TEXT, help_text="Who carries it, as the customer knows them (DHL, UPS).")
    tracking_number = text_field(SHORT_TEXT, required=False)
    tracking_url = serializers.CharField(
        required=False,
        help_text=f"Where the customer follows the parcel: a whole https:// address, at most "
        f"{TRACKING_URL_MAX} characters.",
    )
    lines = serializers.ListField(
        child=ShipmentLineInput(),
        required=False,
        max_length=MAX_LINES,
        help_text="The order's lines in this parcel and how many of each; absent: everything not "
        "shipped yet. None for an order placed with the short body.",
    )

    def validate_tracking_url(self, value: str) -> str:
        problem = tracking_url_problem(value)  # the rule a platform's link meets too (intake/apply.py)
        if problem:
            raise ValidationError(problem)
        return value


class OrderShipmentApi(APIView):
    @extend_schema(
        request=ShipmentInput,
        responses={
            201: OrderOutputSerializer,
            200: OrderOutputSerializer,
            **error_responses(with_body=True, also=(404, 409)),
        },
        description='A parcel of the order left the shop: the customer gets a "shipped" email, after '
        "the order's confirmation. Sent again with the same shipment_id and body, the answer is 200 "
        "and nothing more happens; with another body, 409 shipment_id_taken. A line not in the order, "
        "or more of one than is left to ship, is 409 shipment_exceeds_order / shipment_lines_unknown; "
        "a cancelled order, 409 order_cancelled; an order whose content was erased (its lines are no "
        "longer known), 409 order_erased.",
    )
    def post(self, request: Request, order_id: UUID) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["The body must be a JSON object."]})
        serializer = ShipmentInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        api_token = client_token(request)
        try:
            creation = shipment_create(
                order_id=order_id,
                api_token=api_token,
                shop_shipment_id=data["shipment_id"],
                carrier=data["carrier"],
                tracking_number=data.get("tracking_number", ""),
                tracking_url=data.get("tracking_url", ""),
                lines=[dict(line) for line in data.get("lines", [])],
            )
        except OrderNotFound as exc:
            raise NotFound(str(exc)) from exc
        except ShipmentRefused as exc:
            return Response({"error": exc.code, "message": str(exc)}, status=status.HTTP_409_CONFLICT)
        order = order_get_with_notifications(order_id=order_id, api_token=api_token)
        if creation.replayed:
            return Response(OrderOutputSerializer(order).data, headers={"Idempotent-Replayed": "true"})
        return Response(OrderOutputSerializer(order).data, status=status.HTTP_201_CREATED)
