"""A Saleor instance's key endpoint for the intake's tests, over real HTTP: it publishes its
public key at /.well-known/jwks.json as saleor/core/jwt_manager.py `get_jwks` does (the RSA key
as a JWK with "use": "sig", "alg": "RS256" and its RFC 7638 thumbprint as "kid") and signs
deliveries with the private half. It counts the fetches, can rotate its key and can fail."""

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests import saleor_payloads


class SaleorKeys:
    def __init__(self) -> None:
        self.fetches = 0
        self.status = 200
        self.rotate()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/graphql/"

    def rotate(self) -> None:
        """A new key pair: only the new public key is published from now on."""
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(self.private_key.public_key()))
        self.kid = _thumbprint(self.jwk)
        self.jwk.update({"use": "sig", "kid": self.kid, "alg": "RS256"})

    def sign(self, body: bytes) -> str:
        return saleor_payloads.signature_of(body, self.private_key, self.kid)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        keys = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/.well-known/jwks.json":
                    self.send_error(404)
                    return
                keys.fetches += 1
                body = json.dumps({"keys": [keys.jwk]}).encode() if keys.status == 200 else b"unavailable"
                self.send_response(keys.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read the counts."""

        return Handler


def _thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638: SHA-256 of the required members in lexicographic order, base64url."""
    canonical = json.dumps({name: jwk[name] for name in ("e", "kty", "n")}, separators=(",", ":"))
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()
