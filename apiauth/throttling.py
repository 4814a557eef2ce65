from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework import exceptions, throttling
from rest_framework.request import Request

if TYPE_CHECKING:  # DRF imports this module while rest_framework.views is still loading
    from rest_framework.views import APIView

from apiauth.authentication import request_api_token
from apiauth.rate_limits import api_token_rate_window_hit, rate_parse


class ApiTokenRateThrottle(throttling.BaseThrottle):
    """API_THROTTLE_RATE per token, shared by all web processes (apiauth/rate_limits.py).

    Runs after authentication: a request without a valid token was already refused with 401.
    """

    def allow_request(self, request: Request, view: "APIView") -> bool:
        token = request_api_token(request)
        if token is None:
            return True  # a view open to anonymous callers (the schema); nothing to count against
        rate = rate_parse(settings.API_THROTTLE_RATE)
        hit = api_token_rate_window_hit(token=token, rate=rate)
        if hit.request_count > rate.requests:
            # Raised here rather than returning False, so the message can name the limit.
            raise exceptions.Throttled(
                wait=hit.retry_after_seconds,
                detail=f"Too many requests for this API token: the limit is {rate}.",
            )
        return True
