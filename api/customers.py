"""A customer's personal data, for the shop's own systems (a privacy request desk): erase it,
or get everything held about it as one document. The address travels in the body of a POST,
never in a URL, so no access log or proxy keeps it.

  POST /api/customers/erasure/ {"email": "ada@example.com"}  → 200, what changed
  POST /api/customers/export/  {"email": "ada@example.com"}  → 200, the document

A token reaches what the orders its client placed hold about the customer, as every other call
of the API reaches only those orders (privacy/reach.py): another client's orders, the
deployment's suppression list and anything else held about the address stay out of its sight
and reach, so another client's customer answers exactly as an address nobody knows. Each
erasure is recorded under the token's name and client, without the address (privacy/erasure.py).
While one of its client's emails to the customer is being sent, the erasure answers 409 with
Retry-After and changes nothing.
"""

import math

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.order_input import StrictSerializer
from api.orders import client_token
from api.schema import error_responses
from privacy.erasure import AddressRefused, EmailsInFlight, customer_erase
from privacy.export import customer_export
from privacy.models import Erasure
from privacy.reach import Reach


class CustomerInput(StrictSerializer):
    unknown_field_message = "This field is not part of the request: it takes `email` alone."
    email = serializers.EmailField(max_length=254, help_text="The customer's address, in any case.")


class ErasureOutput(serializers.Serializer):
    erasure = serializers.IntegerField(help_text="The erasure's record (kept without the address).")
    erased_at = serializers.DateTimeField()
    changed = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rows changed by kind; all 0 when nothing was left."
    )


_IN_FLIGHT = (
    "An email of this customer is being sent right now; nothing changed. Retry after Retry-After seconds."
)


def _address(request: Request) -> str:
    serializer = CustomerInput(data=request.data if isinstance(request.data, dict) else {})
    serializer.is_valid(raise_exception=True)
    return str(serializer.validated_data["email"])


class CustomerErasureApi(APIView):
    @extend_schema(
        request=CustomerInput,
        responses={200: ErasureOutput, **error_responses(with_body=True, meaning={409: _IN_FLIGHT})},
    )
    def post(self, request: Request) -> Response:
        address = _address(request)
        token = client_token(request)
        try:
            erasure = customer_erase(
                address=address,
                via=Erasure.Via.API,
                actor=None,
                actor_name=f"API token {token.name}",
                reach=Reach(api_token=token),
            )
        except AddressRefused as exc:
            raise ValidationError({"email": [str(exc)]}) from exc
        except EmailsInFlight as exc:
            wait = max(1, math.ceil((exc.until - timezone.now()).total_seconds()))
            body = {"error": "emails_in_flight", "message": str(exc)}
            return Response(body, status=status.HTTP_409_CONFLICT, headers={"Retry-After": str(wait)})
        return Response({"erasure": erasure.pk, "erased_at": erasure.erased_at, "changed": erasure.changed})


class CustomerExportApi(APIView):
    @extend_schema(
        request=CustomerInput,
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, description="Everything held about the customer, in words."
            ),
            **error_responses(with_body=True),
        },
    )
    def post(self, request: Request) -> Response:
        address = _address(request)
        token = client_token(request)
        try:
            return Response(
                customer_export(
                    address, via=Erasure.Via.API, actor_name=f"API token {token.name}", api_token=token
                )
            )
        except AddressRefused as exc:
            raise ValidationError({"email": [str(exc)]}) from exc
