"""The order API: orders in, each order shown with its emails. Views validate, call one
service or selector, serialize."""

import re
from typing import Any, Protocol
from uuid import UUID

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.order_input import ORDER_INPUT_SCHEMA, order_arguments, order_input_serializer
from api.schema import error_responses
from apiauth.authentication import request_api_token
from apiauth.models import ApiToken
from notifications.client_reasons import notification_client_reason
from notifications.models import Notification
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderChange, OrderChangeConflict, OrderNotFound
from orders.models import ParcelStatus
from orders.parcel_progress import REPORTED_STATUSES
from orders.services import IdempotencyKeyReused, OrderNumberTaken, order_create_idempotent

IDEMPOTENCY_KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,255}$")  # visible ASCII, like Stripe and Resend


class NotificationOutputSerializer(serializers.Serializer):
    kind = serializers.CharField()
    subject_id = serializers.UUIDField(
        allow_null=True,
        help_text="The shipment an email of a shipment is about (its id); null for the others.",
    )
    status = serializers.CharField()
    status_text = serializers.CharField(source="get_status_display", help_text="the status in words")
    attempts = serializers.IntegerField(source="attempt_count")
    status_changed_at = serializers.DateTimeField()
    age_seconds = serializers.SerializerMethodField()
    reason = serializers.SerializerMethodField(
        help_text="Why the email is in its status, in plain words: e.g. waiting for the mail provider, "
        "in review, not sent because the address is on the do-not-send list. It never carries our "
        "staff's notes or the mail provider's own answer."
    )
    delivery_status = serializers.CharField(
        help_text="what the provider's events said after it accepted the email: empty (no event yet), "
        "delivery_delayed, delivered, bounced or complained"
    )
    delivery_status_at = serializers.DateTimeField(allow_null=True)
    provider = serializers.CharField(
        help_text="The mail provider that took (or is taking) the email: MAIL_PROVIDER's name, or "
        "its fallback's when the first could not take it; empty until the first attempt."
    )

    def get_age_seconds(self, notification: Notification) -> int:
        return int((timezone.now() - notification.status_changed_at).total_seconds())

    def get_reason(self, notification: Notification) -> str:
        return notification_client_reason(notification)


class ShipmentLineOutputSerializer(serializers.Serializer):
    sku = serializers.CharField()
    name = serializers.CharField()
    quantity = serializers.IntegerField()


class ParcelNewsOutputSerializer(serializers.Serializer):
    event_id = serializers.CharField(help_text="The news's own id, as the shop sent it.")
    status = serializers.ChoiceField(choices=REPORTED_STATUSES)
    happened_at = serializers.DateTimeField(help_text="When the carrier says it happened.")
    message = serializers.CharField(help_text="The carrier's words, if the shop passed them on.")
    became_status = serializers.BooleanField(
        help_text="Whether it became the parcel's status: false for news older than news kept before, "
        "or after the parcel was delivered."
    )
    email_event = serializers.CharField(
        help_text="The email it recorded (its event: parcel.out_for_delivery, parcel.delivered, "
        "parcel.delivery_failed, or parcel.in_transit where the shop turned it on; the email is in "
        "`notifications` with this parcel's id), empty if none."
    )
    note = serializers.CharField(help_text="Why it recorded no email, in words; empty if it did.")
    created_at = serializers.DateTimeField(help_text="When it reached us.")


class ShipmentOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="Our id of the shipment: its email's subject_id.")
    shipment_id = serializers.CharField(help_text="The shop's id of the parcel.")
    carrier = serializers.CharField()
    tracking_number = serializers.CharField()
    tracking_url = serializers.CharField()
    lines = ShipmentLineOutputSerializer(many=True)
    created_at = serializers.DateTimeField()
    status = serializers.ChoiceField(
        choices=ParcelStatus.values,
        help_text="Where the parcel stands: shipped until the carrier's first news, then its newest news.",
    )
    status_at = serializers.DateTimeField(
        allow_null=True, help_text="When the carrier's newest news happened."
    )
    events = ParcelNewsOutputSerializer(many=True, help_text="The carrier's news, oldest first.")


class RefundOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="Our id of the refund: its email's subject_id.")
    refund_id = serializers.CharField(help_text="The shop's id of the refund.")
    amount = serializers.IntegerField(help_text="In the order currency's minor units.")
    reason = serializers.CharField()
    lines = ShipmentLineOutputSerializer(many=True)
    in_cancellation = serializers.BooleanField(
        help_text="Announced with the cancellation: its email tells it, and it has none of its own."
    )
    created_at = serializers.DateTimeField()


class OrderOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    number = serializers.CharField(
        allow_null=True, help_text="The shop's order number; null for an order placed with the short body."
    )
    status = serializers.CharField()
    customer_email = serializers.EmailField()
    customer_name = serializers.CharField(help_text="Empty for an order placed with the short body.")
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    locale = serializers.CharField(help_text="the language of the order's emails")
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    content = serializers.JSONField(
        allow_null=True,
        help_text="What was bought, as the shop sent it (the body of a shop's order, amounts in minor "
        "units), in the order's current version; null for an order placed with the short body.",
    )
    shipments = ShipmentOutputSerializer(many=True, source="shipment_list")
    refunds = RefundOutputSerializer(many=True, source="refund_list")
    notifications = NotificationOutputSerializer(many=True)


class OrderCreateApi(APIView):
    @extend_schema(
        request=ORDER_INPUT_SCHEMA,
        responses={201: OrderOutputSerializer, **error_responses(with_body=True, also=(409, 422))},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                location=OpenApiParameter.HEADER,
                required=False,
                description="Retry a POST with the same key to get the same order instead of a second one.",
            )
        ],
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["The body must be a JSON object."]})
        serializer = order_input_serializer(request.data)
        serializer.is_valid(raise_exception=True)
        idempotency_key = _idempotency_key(request)
        api_token = client_token(request)
        try:
            creation = order_create_idempotent(
                **order_arguments(serializer),
                api_token=api_token,
                idempotency_key=idempotency_key,
            )
        except IdempotencyKeyReused as exc:
            return Response({"error": "idempotency_key_reused", "message": str(exc)}, status=422)
        except OrderNumberTaken as exc:
            return Response({"error": "order_number_taken", "message": str(exc)}, status=409)
        order = order_get_with_notifications(order_id=creation.order.id, api_token=api_token)
        headers = {"Idempotent-Replayed": "true"} if creation.replayed else {}
        return Response(OrderOutputSerializer(order).data, status=status.HTTP_201_CREATED, headers=headers)


class OrderChangeService(Protocol):
    def __call__(
        self, *, order_id: UUID, api_token: ApiToken | None, expected_version: int | None = None
    ) -> OrderChange: ...


class OrderChangeApi(APIView):
    """POST /api/orders/<id>/pay/ and /cancel/: one view, the change named by the route."""

    change: OrderChangeService | None = None  # set by as_view(change=...)

    @extend_schema_serializer(component_name="OrderChangeInput")
    class InputSerializer(serializers.Serializer):
        version = serializers.IntegerField(
            required=False,
            min_value=1,
            help_text="The version you saw; the change is refused if it moved on.",
        )

    input_serializer: type[serializers.Serializer] = InputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={200: OrderOutputSerializer, **error_responses(with_body=True, also=(404, 409))},
    )
    def post(self, request: Request, order_id: UUID) -> Response:
        serializer = self.input_serializer(data=request.data if isinstance(request.data, dict) else {})
        serializer.is_valid(raise_exception=True)
        api_token = client_token(request)
        try:
            self.change_with(order_id=order_id, data=serializer.validated_data, api_token=api_token)
        except OrderNotFound as exc:
            raise NotFound(str(exc)) from exc
        except OrderChangeConflict as exc:
            return Response({"error": exc.code, "message": str(exc)}, status=status.HTTP_409_CONFLICT)
        order = order_get_with_notifications(order_id=order_id, api_token=api_token)
        return Response(OrderOutputSerializer(order).data)

    def change_with(self, *, order_id: UUID, data: dict[str, Any], api_token: ApiToken) -> OrderChange:
        assert self.change is not None, "OrderChangeApi.as_view(change=...) names the change"
        return self.change(order_id=order_id, api_token=api_token, expected_version=data.get("version"))


def client_token(request: Request) -> ApiToken:
    """The token the request came with. IsAuthenticated already refuses a request without
    one; refusing it here too keeps the orders placed without a token out of reach even if
    the permissions were ever loosened (None would select exactly those)."""
    api_token = request_api_token(request)
    if api_token is None:
        raise NotAuthenticated()
    return api_token


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not IDEMPOTENCY_KEY_PATTERN.match(key):
        raise ValidationError({"Idempotency-Key": ["Use 1 to 255 visible ASCII characters."]})
    return key
