"""POST /api/orders/<id>/shipments/<shipment id>/events/: the carrier's news of a parcel (in
transit, out for delivery, delivered, a delivery attempted, a failure), passed on by the shop.
Idempotent by the news's own id. The view validates, calls the service, serializes; what the
news does (the parcel's status, at most one email of each kind per parcel) is decided in
orders/parcel_progress.py."""

from datetime import datetime
from typing import Any
from uuid import UUID

from django.utils.dateparse import parse_datetime
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
from orders.content import SHORT_TEXT
from orders.parcel_progress import (
    MESSAGE_MAX,
    REPORTED_STATUSES,
    ParcelNews,
    ParcelNewsRefused,
    happened_at_problem,
    parcel_news_create,
)


class OffsetDateTimeField(serializers.DateTimeField):
    """An ISO 8601 time that names its offset: a local time without one would be read in our
    zone, hours from the carrier's, and could pass for news newer than the next real one."""

    def to_internal_value(self, value: Any) -> datetime:
        if isinstance(value, str):
            try:
                parsed = parse_datetime(value)
            except ValueError:  # well formed, not a time (a 13th month): DRF's own words below
                parsed = None
            else:
                if parsed is None:
                    raise ValidationError("Give a date and time with its offset (ISO 8601).")
            if parsed is not None and parsed.tzinfo is None:
                raise ValidationError("Give the time with its offset (e.g. 2026-12-04T08:12:00+01:00 or …Z).")
        return super().to_internal_value(value)


@extend_schema_serializer(component_name="ParcelNewsInput")
class ParcelNewsInput(StrictSerializer):
    event_id = text_field(
        SHORT_TEXT,
        help_text="The news's own id (e.g. the carrier's event id): sending it again changes nothing.",
    )
    status = serializers.ChoiceField(choices=REPORTED_STATUSES)
    happened_at = OffsetDateTimeField(
        help_text="When the carrier says it happened, with its offset (ISO 8601): news older than news "
        "of the parcel already sent never takes the parcel back."
    )
    message = text_field(MESSAGE_MAX, required=False, help_text="The carrier's words, shown to staff.")

    def validate_happened_at(self, value: datetime) -> datetime:
        problem = happened_at_problem(value)  # the rule a platform's news meets too
        if problem:
            raise ValidationError(problem)
        return value


class ParcelNewsApi(APIView):
    @extend_schema(
        request=ParcelNewsInput,
        responses={
            201: OrderOutputSerializer,
            200: OrderOutputSerializer,
            **error_responses(with_body=True, also=(404, 409)),
        },
        description="The carrier's news of a parcel of the order, named by the shop's shipment id. "
        '"out_for_delivery", "delivered", and "attempted_delivery" or "failure" each send the customer '
        "at most one email per parcel, after the parcel's \"shipped\" email, and only as the parcel's "
        'newest news: nothing after "delivered", nothing for news older than news already sent. '
        '"in_transit" changes only the parcel\'s status, unless the service sends an "in transit" email '
        "(PARCEL_IN_TRANSIT_EMAIL): then at most one per parcel, and none after an email of a later step. "
        "Sent again with the same event_id and body, the "
        "answer is 200 and nothing more happens; with another body, 409 event_id_taken. A shipment id the "
        "order does not have is 409 shipment_not_found; an order whose personal data was erased takes no "
        "news, 409 order_erased.",
    )
    def post(self, request: Request, order_id: UUID, shipment_id: str) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["The body must be a JSON object."]})
        serializer = ParcelNewsInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        api_token = client_token(request)
        news = ParcelNews(
            event_id=data["event_id"],
            status=data["status"],
            happened_at=data["happened_at"],
            message=data.get("message", ""),
        )
        try:
            recording = parcel_news_create(
                order_id=order_id, api_token=api_token, shop_shipment_id=shipment_id, news=news
            )
        except OrderNotFound as exc:
            raise NotFound(str(exc)) from exc
        except ParcelNewsRefused as exc:
            return Response({"error": exc.code, "message": str(exc)}, status=status.HTTP_409_CONFLICT)
        order = order_get_with_notifications(order_id=order_id, api_token=api_token)
        if recording.replayed:
            return Response(OrderOutputSerializer(order).data, headers={"Idempotent-Replayed": "true"})
        return Response(OrderOutputSerializer(order).data, status=status.HTTP_201_CREATED)
