"""The order API: orders in, each order shown with its emails. Views validate, call one
service or selector, serialize."""

import re
from typing import Any, Protocol
from uuid import UUID

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import error_responses
from api.validators import reject_invisible_characters
from apiauth.authentication import request_api_token
from apiauth.models import ApiToken
from notifications.client_reasons import notification_client_reason
from notifications.models import Notification
from notifications.selectors import order_get_with_notifications
from orders.changes import OrderChange, OrderChangeConflict, OrderNotFound, order_not_found_message
from orders.currencies import MoneyRefused, money_check
from orders.services import IdempotencyKeyReused, order_create_idempotent

IDEMPOTENCY_KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,255}$")  # visible ASCII, like Stripe and Resend


class NotificationOutputSerializer(serializers.Serializer):
    kind = serializers.CharField()
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

    def get_age_seconds(self, notification: Notification) -> int:
        return int((timezone.now() - notification.status_changed_at).total_seconds())

    def get_reason(self, notification: Notification) -> str:
        return notification_client_reason(notification)


class OrderOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.CharField()
    customer_email = serializers.EmailField()
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    locale = serializers.CharField(help_text="the language of the order's emails")
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    notifications = NotificationOutputSerializer(many=True)


class OrderCreateApi(APIView):
    @extend_schema_serializer(component_name="OrderCreateInput")  # two views name theirs "Input"
    class InputSerializer(serializers.Serializer):
        customer_email = serializers.EmailField(max_length=254, validators=[reject_invisible_characters])
        # Its decimals depend on the currency (JPY none, EUR 2): validate() checks them.
        amount = serializers.DecimalField(
            max_digits=None,
            decimal_places=None,
            help_text="Greater than zero, with no more decimals than the currency has "
            "(JPY none, EUR 2) and at most 2.",
        )
        currency = serializers.RegexField(
            r"^[A-Z]{3}$",
            error_messages={"invalid": "Use a three-letter ISO 4217 code such as EUR."},
            help_text="An ISO 4217 code of a currency that is legal tender today.",
        )
        locale = serializers.CharField(
            required=False,
            max_length=8,
            help_text="The customer's language for the order's emails; the site's language when absent.",
        )

        def validate_locale(self, value: str) -> str:
            known = [code for code, _ in settings.LANGUAGES]
            if value not in known:
                raise ValidationError(f"Unknown language {value!r}: use one of {', '.join(known)}.")
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise ValidationError({name: ["This field is not part of an order."] for name in unknown})
            try:
                attrs["amount"] = money_check(amount=attrs["amount"], currency=attrs["currency"])
            except MoneyRefused as exc:
                raise ValidationError({exc.field: [str(exc)]}) from exc
            return attrs

    @extend_schema(
        request=InputSerializer,
        responses={201: OrderOutputSerializer, **error_responses(with_body=True, also=(422,))},
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
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        idempotency_key = _idempotency_key(request)
        api_token = _client_token(request)
        try:
            creation = order_create_idempotent(
                **serializer.validated_data,
                api_token=api_token,
                idempotency_key=idempotency_key,
            )
        except IdempotencyKeyReused as exc:
            return Response({"error": "idempotency_key_reused", "message": str(exc)}, status=422)
        order = order_get_with_notifications(order_id=creation.order.id, api_token=api_token)
        headers = {"Idempotent-Replayed": "true"} if creation.replayed else {}
        return Response(OrderOutputSerializer(order).data, status=status.HTTP_201_CREATED, headers=headers)


class OrderDetailApi(APIView):
    @extend_schema(responses={200: OrderOutputSerializer, **error_responses(with_body=False, also=(404,))})
    def get(self, request: Request, order_id: UUID) -> Response:
        order = order_get_with_notifications(order_id=order_id, api_token=_client_token(request))
        if order is None:  # missing, or another token's: the same answer (orders/changes.py)
            raise NotFound(order_not_found_message(order_id))
        return Response(OrderOutputSerializer(order).data)


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

    @extend_schema(
        request=InputSerializer,
        responses={200: OrderOutputSerializer, **error_responses(with_body=True, also=(404, 409))},
    )
    def post(self, request: Request, order_id: UUID) -> Response:
        assert self.change is not None, "OrderChangeApi.as_view(change=...) names the change"
        serializer = self.InputSerializer(data=request.data if isinstance(request.data, dict) else {})
        serializer.is_valid(raise_exception=True)
        api_token = _client_token(request)
        try:
            self.change(
                order_id=order_id,
                api_token=api_token,
                expected_version=serializer.validated_data.get("version"),
            )
        except OrderNotFound as exc:
            raise NotFound(str(exc)) from exc
        except OrderChangeConflict as exc:
            return Response({"error": "conflict", "message": str(exc)}, status=status.HTTP_409_CONFLICT)
        order = order_get_with_notifications(order_id=order_id, api_token=api_token)
        return Response(OrderOutputSerializer(order).data)


def _client_token(request: Request) -> ApiToken:
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
