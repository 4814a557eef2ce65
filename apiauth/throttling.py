from django.conf import settings
from rest_framework import exceptions, throttling

from apiauth.rate_limits import api_token_rate_window_hit, rate_parse


class ApiTokenRateThrottle(throttling.BaseThrottle):
    """API_THROTTLE_RATE per token, shared by all web processes (apiauth/rate_limits.py).

    Runs after authentication: a request without a valid token was already refused with 401.
    """

    def allow_request(self, request, view) -> bool:
        if request.auth is None:
            return True  # a view open to anonymous callers (the schema); nothing to count against
        rate = rate_parse(settings.API_THROTTLE_RATE)
        hit = api_token_rate_window_hit(token=request.auth, rate=rate)
        if hit.request_count > rate.requests:
            # Raised here rather than returning False, so the message can name the limit.
            raise exceptions.Throttled(
                wait=hit.retry_after_seconds,
                detail=f"Too many requests for this API token: the limit is {rate}.",
            )
        return True
