from typing import cast

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from apiauth.models import ApiToken
from apiauth.services import api_token_authenticate


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>`; the token itself is the authenticated principal."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[ApiToken, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, raw = header.partition(" ")
        if keyword != self.keyword or not raw.strip():
            raise exceptions.AuthenticationFailed("Use the header 'Authorization: Bearer <token>'.")
        token = api_token_authenticate(raw_token=raw.strip())
        if token is None:
            raise exceptions.AuthenticationFailed("The token is unknown or has been revoked.")
        return token, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def request_api_token(request: Request) -> ApiToken | None:
    """The token a request was authenticated with (`request.auth`, which DRF types as any
    value: BearerTokenAuthentication, the API's only authentication, sets our ApiToken)."""
    return cast(ApiToken | None, request.auth)
